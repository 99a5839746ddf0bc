package dev.lethe.store.soak;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The S3 server and bucket of {@link Backend#S3}: every replica serves {@code
 * s3://BUCKET/soak-…?endpoint=ENDPOINT}. The endpoint is on this machine (the soak talks only to
 * 127.0.0.1); the bucket must exist.
 *
 * @param endpoint {@code http://127.0.0.1:PORT} or {@code http://localhost:PORT}
 * @param bucket an existing bucket
 * @param settings {@code lethe.store.s3.*} keys handed to every replica as environment variables
 *     (credentials; may hold a secret, so {@link #toString} names the keys only)
 */
public record S3Target(URI endpoint, String bucket, Map<String, String> settings) {

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  /** @throws IllegalArgumentException naming the bad endpoint or bucket */
  public S3Target {
    Objects.requireNonNull(endpoint, "endpoint");
    settings = Map.copyOf(settings);
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException("Invalid --s3-bucket '" + bucket + "': 3 to 63 of a-z, 0-9, '.', '-'");
    }
    if (settings.keySet().stream().anyMatch(k -> !k.startsWith("lethe.store.s3."))) {
      throw new IllegalArgumentException("Invalid S3 settings: only lethe.store.s3.* keys");
    }
  }

  /**
   * Parses {@code --s3-endpoint}: an absolute {@code http(s)://} URI whose host is {@code
   * 127.0.0.1} or {@code localhost}, with no path, query or user.
   *
   * @throws IllegalArgumentException naming the value and what is expected
   */
  public static URI endpoint(String text) {
    String problem = "needs http://127.0.0.1:PORT or http://localhost:PORT (the soak talks only to this machine)";
    if (text == null) {
      throw new IllegalArgumentException("Invalid --s3-endpoint: --backend s3 " + problem);
    }
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Invalid --s3-endpoint '" + text + "': " + problem);
    }
    boolean local = "127.0.0.1".equals(uri.getHost()) || "localhost".equals(uri.getHost());
    boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty() || "/".equals(uri.getRawPath()))
        && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || !local || !bare) {
      throw new IllegalArgumentException("Invalid --s3-endpoint '" + text + "': " + problem);
    }
    return URI.create(uri.getScheme() + "://" + uri.getRawAuthority());
  }

  /** The store URI of {@code prefix} in the bucket, naming the endpoint. */
  public String storeUri(String prefix) {
    return "s3://" + bucket + "/" + prefix + "?endpoint=" + endpoint;
  }

  @Override
  public String toString() {
    return "S3Target[endpoint=" + endpoint + ", bucket=" + bucket + ", settings=" + settings.keySet() + "]";
  }
}
