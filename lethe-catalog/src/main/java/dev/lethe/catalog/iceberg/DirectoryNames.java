package dev.lethe.catalog.iceberg;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The directory name a namespace level or a table/view name gets in a default location, bounded to
 * the 255 bytes a file name may have on common file systems (ext4, XFS, APFS, NTFS in UTF-16 units
 * is larger), so that every name {@link EntityNames} accepts works
 * (docs/design/0401-name-and-column-limits.md).
 *
 * <p>A name that fits its byte budget and holds no character a location may not hold is used as
 * is, so every location derived before this rule existed is derived the same way. A longer one is
 * cut on a code point boundary and ends in {@code ~} and 16 hex digits of the SHA-256 of the whole
 * name: stable (the same name always maps to the same directory) and distinct for names sharing a
 * long prefix. A name holding {@code ?}, {@code #} or {@code \}, which a valid location may not
 * hold (docs/catalog.md "Allowed locations"), has each of them replaced by {@code _} and gets the
 * same {@code ~} hash suffix, so {@code a?b} and {@code a_b} still get different directories.
 */
public final class DirectoryNames {
  /** The longest file name, in UTF-8 bytes. */
  public static final int MAX_BYTES = 255;
  private static final int HASH_HEX = 16;

  private DirectoryNames() {}

  /** The directory of {@code name} when nothing is appended to it. */
  public static String of(String name) {
    return bounded(name, MAX_BYTES);
  }

  /**
   * The directory of {@code name} followed by {@code suffix} (e.g. {@code -<32 hex>}), at most
   * {@link #MAX_BYTES} bytes in all; the suffix is ASCII.
   */
  public static String of(String name, String suffix) {
    return bounded(name, MAX_BYTES - suffix.getBytes(StandardCharsets.UTF_8).length) + suffix;
  }

  static String bounded(String name, int budget) {
    byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
    boolean safe = name.chars().noneMatch(DirectoryNames::unsafe);
    if (safe && utf8.length <= budget) {
      return name;
    }
    int keep = Math.min(budget - 1 - HASH_HEX, utf8.length);
    StringBuilder head = new StringBuilder();
    int bytes = 0;
    for (int i = 0; i < name.length(); ) {
      int cp = name.codePointAt(i);
      int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + n > keep) {
        break;
      }
      head.appendCodePoint(unsafe(cp) ? '_' : cp);
      bytes += n;
      i += Character.charCount(cp);
    }
    return head + "~" + HexFormat.of().formatHex(sha256(utf8), 0, HASH_HEX / 2);
  }

  /** A character {@code LocationPath} refuses in a location that a name may hold. */
  private static boolean unsafe(int c) {
    return c == '?' || c == '#' || c == '\\';
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
