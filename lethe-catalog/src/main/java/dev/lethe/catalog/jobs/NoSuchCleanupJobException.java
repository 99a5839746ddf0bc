package dev.lethe.catalog.jobs;

import org.apache.iceberg.exceptions.NotFoundException;

/** No cleanup job of that id in that catalog (pruned, never created, or another catalog's): a 404. */
public final class NoSuchCleanupJobException extends NotFoundException {
  /** @param catalogName the catalog asked about, for the message */
  public NoSuchCleanupJobException(String catalogName, long jobId) {
    super("Cleanup job does not exist in catalog %s: %d", catalogName, jobId);
  }
}
