package dev.lethe.catalog.iceberg;

/**
 * Whether text is well-formed Unicode: no unpaired UTF-16 surrogate. Such a string has no UTF-8
 * form, so each database stores something else (H2 keeps it and nothing can name it again;
 * PostgreSQL and MariaDB store {@code ?} and it collides with a real {@code ?}); it is refused with
 * 400 wherever a client can send it (docs/design/0400-strict-request-input.md).
 */
public final class WellFormedText {
  private WellFormedText() {}

  /** The index of the first unpaired surrogate, or -1 when the text is well-formed. */
  public static int firstUnpairedSurrogate(CharSequence s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        return i;
      }
      if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Refuses text with an unpaired surrogate.
   *
   * @param what what the text is, for the message (e.g. {@code "table name"})
   * @throws IllegalArgumentException naming the position and code unit
   */
  public static void check(String what, CharSequence s) {
    int at = firstUnpairedSurrogate(s);
    if (at >= 0) {
      throw new IllegalArgumentException(String.format(
          "Invalid %s: not valid Unicode: unpaired surrogate U+%04X at index %d", what, (int) s.charAt(at), at));
    }
  }
}
