package dev.lethe.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Decodes the raw path segments of an Iceberg REST request the way Iceberg's reference server does
 * ({@code RESTUtil.decodeString}, i.e. {@code application/x-www-form-urlencoded}): {@code %XX} is a
 * byte and {@code +} is a space. The iceberg-java 1.11 client encodes a space as {@code +}
 * ({@code URLEncoder}); 1.12 sends {@code %20}; both send a literal {@code +} as {@code %2B}, so
 * either decodes to the name the client meant (docs/design/0400-strict-request-input.md).
 *
 * <p>The bytes must be well-formed UTF-8 (no overlong form, no encoded surrogate): anything else is
 * a 400 naming the segment, not a name with replacement characters.
 */
public final class PathSegments {
  private PathSegments() {}

  /**
   * The decoded path parameters of a request whose raw path matched {@code pattern} (a route path
   * with {@code {name}} segments).
   *
   * @throws IllegalArgumentException if a parameter's segment is not valid
   */
  public static Map<String, String> params(String pattern, String rawPath) {
    String[] names = pattern.split("/", -1);
    String[] raw = rawPath.split("/", -1);
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < names.length && i < raw.length; i++) {
      if (names[i].startsWith("{") && names[i].endsWith("}")) {
        out.put(names[i].substring(1, names[i].length() - 1), decode(raw[i]));
      }
    }
    return out;
  }

  /**
   * One segment, form-decoded.
   *
   * @throws IllegalArgumentException on a bad escape or bytes that are not UTF-8
   */
  public static String decode(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw.replace('+', ' ');
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      int c = raw.codePointAt(i);
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("Invalid path segment '" + raw + "': bad percent escape at index " + i);
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else if (c == '+') {
        bytes.write(' ');
      } else {
        byte[] b = new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8);
        bytes.write(b, 0, b.length);
        i += Character.charCount(c) - 1;
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("Invalid path segment '" + raw + "': not valid UTF-8");
    }
  }
}
