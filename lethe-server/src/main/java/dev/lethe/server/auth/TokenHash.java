package dev.lethe.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The SHA-256 of a bearer token, the only form in which the auth file holds tokens. The digest is
 * taken over the token's UTF-8 bytes, exactly as {@code printf %s "$TOKEN" | sha256sum} does.
 */
public final class TokenHash {
  private static final Pattern LOWER_HEX_64 = Pattern.compile("[0-9a-f]{64}");

  private TokenHash() {}

  /**
   * Hashes a token.
   *
   * @param token the clear token, not null
   * @return 32 bytes
   */
  public static byte[] sha256(String token) {
    Objects.requireNonNull(token, "Cannot hash token: token is null");
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Hashes a token to the auth file form.
   *
   * @param token the clear token, not null
   * @return 64 lower-case hex characters
   */
  public static String sha256Hex(String token) {
    return HexFormat.of().formatHex(sha256(token));
  }

  /** Whether {@code value} has the auth file form: exactly 64 lower-case hex characters. */
  public static boolean isSha256Hex(String value) {
    return value != null && LOWER_HEX_64.matcher(value).matches();
  }

  /**
   * Compares two digests in time independent of where they differ ({@link
   * MessageDigest#isEqual}).
   */
  public static boolean matches(byte[] expected, byte[] actual) {
    return MessageDigest.isEqual(expected, actual);
  }
}
