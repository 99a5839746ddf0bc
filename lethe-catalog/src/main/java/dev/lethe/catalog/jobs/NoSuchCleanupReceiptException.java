package dev.lethe.catalog.jobs;

import org.apache.iceberg.exceptions.NotFoundException;

/**
 * No receipt for that job id in that catalog: the job has not ended, never existed, or is another
 * catalog's (docs/design/0445-job-progress-and-receipts.md): a 404.
 */
public final class NoSuchCleanupReceiptException extends NotFoundException {
  /** @param catalogName the catalog asked about, for the message */
  public NoSuchCleanupReceiptException(String catalogName, long jobId) {
    super("Cleanup job has no receipt in catalog %s: %d (it has not ended, or does not exist)", catalogName, jobId);
  }
}
