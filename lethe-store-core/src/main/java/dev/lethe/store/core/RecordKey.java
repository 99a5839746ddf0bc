package dev.lethe.store.core;

import java.util.Comparator;
import java.util.Objects;

/**
 * The address of a record: {@code namespace/collection/id}.
 *
 * <p>Each part is 1 to 255 characters of {@code [A-Za-z0-9._-]} and is neither {@code .} nor
 * {@code ..} (docs/design/0203-store-model.md "Model"). Substrates map keys to paths, so a key is validated
 * when it is constructed, before any I/O.
 *
 * @param namespace the namespace, never null
 * @param collection the collection inside the namespace, never null
 * @param id the record id inside the collection, never null
 */
public record RecordKey(String namespace, String collection, String id) implements Comparable<RecordKey> {

  /** Longest allowed part, in characters. */
  public static final int MAX_PART_LENGTH = 255;

  private static final Comparator<RecordKey> ORDER =
      Comparator.comparing(RecordKey::namespace)
          .thenComparing(RecordKey::collection)
          .thenComparing(RecordKey::id);

  /**
   * @throws IllegalArgumentException if any part is invalid; the message names the part and why
   */
  public RecordKey {
    checkPart("namespace", namespace);
    checkPart("collection", collection);
    checkPart("id", id);
  }

  /**
   * Parses {@code ns/col/id}.
   *
   * @throws IllegalArgumentException if the text does not have exactly three valid parts
   */
  public static RecordKey parse(String text) {
    Objects.requireNonNull(text, "key");
    String[] parts = text.split("/", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "Invalid key '" + printable(text) + "': expected namespace/collection/id");
    }
    return new RecordKey(parts[0], parts[1], parts[2]);
  }

  /**
   * Checks one key part.
   *
   * @param what the part's name used in the message ("namespace", "collection", "id")
   * @param part the value, may be null (rejected)
   * @throws IllegalArgumentException if the part is invalid
   */
  public static void checkPart(String what, String part) {
    String problem = problem(part);
    if (problem != null) {
      throw new IllegalArgumentException(
          "Invalid " + what + " '" + (part == null ? "null" : printable(part)) + "': " + problem);
    }
  }

  /** Returns whether {@code part} is a valid key part. */
  public static boolean isValidPart(String part) {
    return problem(part) == null;
  }

  private static String problem(String part) {
    if (part == null || part.isEmpty()) {
      return "must not be empty";
    }
    if (part.length() > MAX_PART_LENGTH) {
      return "longer than " + MAX_PART_LENGTH + " characters (" + part.length() + ")";
    }
    if (part.equals(".") || part.equals("..")) {
      return "'.' and '..' are not allowed";
    }
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '.' || c == '_' || c == '-';
      if (!ok) {
        return "character " + describe(c) + " at position " + i + " is not one of [A-Za-z0-9._-]";
      }
    }
    return null;
  }

  private static String describe(char c) {
    if (c >= 0x20 && c < 0x7f) {
      return "'" + c + "'";
    }
    return String.format("U+%04X", (int) c);
  }

  /** Shortens and escapes a bad value so an error message stays one readable line. */
  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 60; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        b.append(c);
      } else {
        b.append(String.format("\\u%04x", (int) c));
      }
    }
    if (b.length() >= 60 && s.length() > 60) {
      b.append("...");
    }
    return b.toString();
  }

  @Override
  public int compareTo(RecordKey o) {
    return ORDER.compare(this, o);
  }

  /** Returns {@code namespace/collection/id}. */
  @Override
  public String toString() {
    return namespace + "/" + collection + "/" + id;
  }
}
