package dev.lethe.store.s3;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A parsed {@code s3://bucket/prefix?name=value&…} store URI (docs/design/0130-s3-store-substrate.md).
 * Parsing is pure: no I/O, no credentials.
 *
 * @param bucket the bucket name, 3 to 63 characters of {@code [a-z0-9.-]}, starting and ending
 *     with a letter or digit
 * @param prefix the key prefix under which the store lives, without leading or trailing {@code /};
 *     empty for the bucket's root
 * @param parameters the query parameters, only names of {@link #PARAMETERS}; values URL-decoded
 */
public record S3Location(String bucket, String prefix, Map<String, String> parameters) {

  /** The URI scheme with its separator. */
  public static final String SCHEME = "s3://";

  /** The query parameters a store URI may carry; credentials are never among them. */
  public static final Set<String> PARAMETERS = Set.of("endpoint", "region", "path-style");

  public S3Location {
    parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
  }

  /** Whether {@code uri} names an S3 store (its scheme is {@code s3:}). */
  public static boolean supports(String uri) {
    return uri != null && uri.regionMatches(true, 0, "s3:", 0, 3);
  }

  /**
   * Parses a store URI.
   *
   * @throws IllegalArgumentException naming the URI and what is wrong with it: no {@code //}, no
   *     or an invalid bucket, an invalid prefix segment, an unknown or repeated parameter
   */
  public static S3Location parse(String uri) {
    if (!supports(uri) || !uri.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      throw new IllegalArgumentException("Invalid S3 store URI '" + uri + "': expected s3://BUCKET[/PREFIX]");
    }
    String rest = uri.substring(SCHEME.length());
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    String bucketProblem = bucketProblem(bucket);
    if (bucketProblem != null) {
      throw new IllegalArgumentException("Invalid S3 store URI '" + uri + "': bucket '" + bucket + "' " + bucketProblem);
    }
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (!prefix.isEmpty()) {
      for (String segment : prefix.split("/", -1)) {
        String problem = segmentProblem(segment);
        if (problem != null) {
          throw new IllegalArgumentException("Invalid S3 store URI '" + uri + "': prefix segment '" + segment + "' "
              + problem);
        }
      }
    }
    Map<String, String> params = new LinkedHashMap<>();
    if (!query.isEmpty()) {
      for (String pair : query.split("&", -1)) {
        int eq = pair.indexOf('=');
        String name = eq < 0 ? pair : pair.substring(0, eq);
        String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        if (!PARAMETERS.contains(name)) {
          throw new IllegalArgumentException("Invalid S3 store URI '" + uri + "': unknown parameter '" + name
              + "' (known: endpoint, region, path-style; credentials come from lethe.store.s3.* or the AWS"
              + " environment)");
        }
        if (value.isEmpty()) {
          throw new IllegalArgumentException("Invalid S3 store URI '" + uri + "': parameter '" + name + "' has no value");
        }
        if (params.put(name, value) != null) {
          throw new IllegalArgumentException("Invalid S3 store URI '" + uri + "': parameter '" + name + "' is repeated");
        }
      }
    }
    return new S3Location(bucket, prefix, params);
  }

  /** Returns {@code s3://bucket/prefix}, without parameters. */
  @Override
  public String toString() {
    return SCHEME + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }

  /** Returns the object key prefix of everything the store writes: {@code prefix/}, or empty. */
  String base() {
    return prefix.isEmpty() ? "" : prefix + "/";
  }

  private static String bucketProblem(String b) {
    if (b.isEmpty()) {
      return "is missing";
    }
    if (b.length() < 3 || b.length() > 63) {
      return "must be 3 to 63 characters long";
    }
    for (int i = 0; i < b.length(); i++) {
      char c = b.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) {
        return "may hold only lower-case letters, digits, '.' and '-'";
      }
    }
    if (!Character.isLetterOrDigit(b.charAt(0)) || !Character.isLetterOrDigit(b.charAt(b.length() - 1))) {
      return "must start and end with a letter or digit";
    }
    return null;
  }

  private static String segmentProblem(String s) {
    if (s.isEmpty()) {
      return "is empty (two '/' in a row)";
    }
    if (s.equals(".") || s.equals("..")) {
      return "may not be '.' or '..'";
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
          || c == '-')) {
        return "may hold only [A-Za-z0-9._-]";
      }
    }
    return null;
  }
}
