package dev.lethe.store.core.format;

/**
 * A stored record cannot be read (invalid JSON, an unsupported format version, or a key that does
 * not match its location). Thrown by reads of that key only; other keys are still served.
 */
public final class CorruptRecordException extends RuntimeException {

  private final String location;

  /**
   * @param location where the record is stored (a file path, an object key)
   * @param cause the decoding error
   */
  public CorruptRecordException(String location, Throwable cause) {
    super("Cannot read record " + location + ": " + cause.getMessage(), cause);
    this.location = location;
  }

  /** Returns where the unreadable record is stored. */
  public String location() {
    return location;
  }
}
