package dev.lethe.server.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server key page tokens are signed with (docs/design/0423-signed-page-tokens.md): HMAC-SHA256
 * over a token kind's tag and the token's body, cut to {@link #MAC_BYTES} bytes. Every server on
 * one catalog database holds the same key, so each accepts the others' tokens.
 */
public final class PageTokenKey {
  /** Length of a token's signature, in bytes. */
  public static final int MAC_BYTES = 16;

  private final SecretKeySpec key;

  private PageTokenKey(byte[] key) {
    this.key = new SecretKeySpec(key, "HmacSHA256");
  }

  /**
   * @param key the secret, at least 16 bytes (the catalog database's {@code page-token-key})
   * @throws IllegalArgumentException for a shorter key
   */
  public static PageTokenKey of(byte[] key) {
    if (key.length < 16) {
      throw new IllegalArgumentException("Invalid page token key: " + key.length + " bytes, at least 16 needed");
    }
    return new PageTokenKey(key.clone());
  }

  /** The signature of {@code body} as a token of kind {@code tag}; {@link #MAC_BYTES} long. */
  public byte[] sign(String tag, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      mac.update(tag.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      return Arrays.copyOf(mac.doFinal(body), MAC_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot sign a page token", e);
    }
  }

  /** Whether {@code signature} is {@link #sign}'s for {@code tag} and {@code body} (compared in constant time). */
  public boolean verifies(String tag, byte[] body, byte[] signature) {
    return MessageDigest.isEqual(sign(tag, body), signature);
  }
}
