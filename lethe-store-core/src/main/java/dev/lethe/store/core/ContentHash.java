package dev.lethe.store.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 content hashes as 64 lowercase hex characters (docs/design/0203-store-model.md "Model"). */
public final class ContentHash {

  private ContentHash() {}

  /** Returns the SHA-256 hex of {@code bytes}. */
  public static String of(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash: the JVM has no SHA-256", e);
    }
  }

  /** Returns the SHA-256 hex of the UTF-8 bytes of {@code text}. */
  public static String ofUtf8(String text) {
    return of(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Returns whether {@code hash} is 64 lowercase hex characters. */
  public static boolean isValid(String hash) {
    if (hash == null || hash.length() != 64) {
      return false;
    }
    for (int i = 0; i < 64; i++) {
      char c = hash.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
