package dev.lethe.store.core.format;

import dev.lethe.store.core.RecordKey;
import java.util.Optional;

/**
 * A stored record cannot be trusted: it cannot be read (invalid JSON, an unsupported format
 * version, a key that does not match its location), or its revision does not prove its content
 * (docs/design/0108-records-that-prove-their-content.md). Thrown by reads and writes of that key
 * only; other keys are still served.
 */
public final class CorruptRecordException extends RuntimeException {

  private final String location;
  private final transient RecordKey key;

  /**
   * @param location where the record is stored (a file path, a row)
   * @param cause the decoding error
   */
  public CorruptRecordException(String location, Throwable cause) {
    super("Cannot read record " + location + ": " + cause.getMessage(), cause);
    this.location = location;
    this.key = null;
  }

  /**
   * A record whose content does not match its revision.
   *
   * @param key the record's key
   * @param location where it is stored (a file path, a row, a server)
   * @param problem what does not match, one line
   */
  public CorruptRecordException(RecordKey key, String location, String problem) {
    super("Corrupt record " + key + " at " + location + ": " + problem);
    this.location = location;
    this.key = key;
  }

  /** Returns where the record is stored. */
  public String location() {
    return location;
  }

  /** Returns the record's key, when known. */
  public Optional<RecordKey> key() {
    return Optional.ofNullable(key);
  }
}
