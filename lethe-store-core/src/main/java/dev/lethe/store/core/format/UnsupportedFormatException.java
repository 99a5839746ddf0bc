package dev.lethe.store.core.format;

/**
 * A record document declares a format version this build does not read. Never guessed around:
 * a reader that guessed could drop fields a newer writer relies on.
 */
public final class UnsupportedFormatException extends RecordFormatException {
  /** @param message names the version found and the versions supported */
  public UnsupportedFormatException(String message) {
    super(message);
  }
}
