package dev.lethe.catalog.softdelete;

/**
 * An operator's rescue of a cleanup job refused for what the table's files or its namespace are
 * (docs/design/0443-abandon-and-rescue.md): a file the job's metadata reaches is gone, or the
 * namespace no longer exists. HTTP 409; nothing was changed.
 */
public final class JobRescueRefusedException extends RuntimeException {
  /** @param message what could not be done, then why */
  public JobRescueRefusedException(String message) {
    super(message);
  }
}
