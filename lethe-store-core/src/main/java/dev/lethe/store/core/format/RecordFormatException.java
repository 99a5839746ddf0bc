package dev.lethe.store.core.format;

/** A record document is not valid record JSON of a supported format version. */
public class RecordFormatException extends IllegalArgumentException {
  /** @param message what is wrong, naming the field */
  public RecordFormatException(String message) {
    super(message);
  }

  /** @param message what is wrong; @param cause the parser's error */
  public RecordFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
