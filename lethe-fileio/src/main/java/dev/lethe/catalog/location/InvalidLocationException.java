package dev.lethe.catalog.location;

/**
 * A location that {@link LocationPath#parse} refuses, or one outside what a rule allows
 * (docs/design/0001-purge-confinement-and-ownership.md §1–2). An {@link IllegalArgumentException},
 * so every route answers it with 400 and changes nothing.
 */
public final class InvalidLocationException extends IllegalArgumentException {
  private final String location;
  private final String reason;

  /**
   * @param location the location as written, may be null
   * @param reason why it is refused, not null
   */
  public InvalidLocationException(String location, String reason) {
    super("Invalid location '" + abbreviate(location) + "': " + reason);
    this.location = location;
    this.reason = reason;
  }

  /** Why the location is refused, without the location; not null. */
  public String reason() {
    return reason;
  }

  /** The refused location as written; may be null. */
  public String location() {
    return location;
  }

  private static String abbreviate(String location) {
    if (location == null) {
      return "null";
    }
    String printable = location.codePoints()
        .map(c -> c < 0x20 || c == 0x7f || (c >= 0xD800 && c <= 0xDFFF) ? '?' : c)
        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
        .toString();
    return printable.length() <= 300 ? printable : printable.substring(0, 300) + "…";
  }
}
