package dev.lethe.catalog.jobs;

import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.jdbi.v3.core.Handle;

/**
 * The tombstone rule (docs/design/0201-cleanup-jobs.md §7): while a cleanup job of an identifier is {@code PENDING}
 * or {@code RUNNING}, creating, registering or renaming a table or view into that identifier is
 * refused with {@link AlreadyExistsException} (HTTP 409) whose message names the job. Terminal jobs
 * do not block.
 */
public final class NameReuseGuard {
  private NameReuseGuard() {}

  /**
   * @param h handle (inside the creating transaction, so the check and the insert are atomic)
   * @param catalogId catalog of the identifier
   * @param namespace levels joined by U+001F
   * @param id the identifier, for the message
   * @throws AlreadyExistsException if an active cleanup job holds the name
   */
  public static void check(Handle h, String catalogId, String namespace, TableIdentifier id) {
    new CleanupJobDao(h).findActive(catalogId, namespace, id.name()).ifPresent(job -> {
      throw new AlreadyExistsException(
          "Cannot use name %s: the files of the dropped %s are being purged by cleanup job %d (state %s); retry when it ends",
          id, job.objectType().name().toLowerCase(java.util.Locale.ROOT), job.jobId(), job.state());
    });
  }
}
