package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.KeysetPage;

/**
 * The cleanup job listing the management route serves, newest first (docs/design/0403-keyset-catalog-listings.md):
 * the one query the HTTP edge asks of the job table, so no route reaches a DAO.
 */
public final class CleanupJobListing {
  private final CatalogDatabase database;
  private final long heartbeatTimeoutMs;
  private final DatabaseClock clock;

  /** Lists the jobs stored in {@code database}; a lease is stale after the default heartbeat timeout. */
  public CleanupJobListing(CatalogDatabase database) {
    this(database, AsyncPurgeSettings.DEFAULTS.heartbeatTimeoutMs());
  }

  /**
   * Lists the jobs stored in {@code database}.
   *
   * @param heartbeatTimeoutMs the workers' heartbeat timeout (ms): a {@code RUNNING} job whose
   *     heartbeat is older is shown {@code stale}
   */
  public CleanupJobListing(CatalogDatabase database, long heartbeatTimeoutMs) {
    this.database = database;
    this.heartbeatTimeoutMs = heartbeatTimeoutMs;
    this.clock = DatabaseClock.of(database.vendor());
  }

  /**
   * One page of a catalog's jobs with their leases as of the database clock now
   * (docs/design/0445-job-progress-and-receipts.md); parameters as {@link #page}.
   */
  public KeysetPage<ListedJob> listed(String catalogId, String namespace, String objectName, CleanupJobState state,
      Long before, int size) {
    return database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      return new CleanupJobDao(h).list(catalogId, namespace, objectName, state, before, size)
          .map(job -> ListedJob.of(job, now, heartbeatTimeoutMs));
    });
  }

  /**
   * One job of the catalog with its lease now.
   *
   * @throws NoSuchCleanupJobException if there is none of that id in the catalog
   */
  public ListedJob job(String catalogId, String catalogName, long jobId) {
    return database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      CleanupJob job = new CleanupJobDao(h).find(jobId).filter(j -> j.catalogId().equals(catalogId))
          .orElseThrow(() -> new NoSuchCleanupJobException(catalogName, jobId));
      return ListedJob.of(job, now, heartbeatTimeoutMs);
    });
  }

  /**
   * The receipt of a job of the catalog: the newest, for a job that ended more than once.
   *
   * @throws NoSuchCleanupReceiptException if the job has no receipt in the catalog (it never ended, does
   *     not exist, or is of another catalog)
   */
  public CleanupReceipt receipt(String catalogId, String catalogName, long jobId) {
    return database.jdbi().withHandle(h -> CleanupReceipts.find(h, catalogId, jobId))
        .orElseThrow(() -> new NoSuchCleanupReceiptException(catalogName, jobId));
  }

  /**
   * One page of a catalog's jobs, by descending job id.
   *
   * @param catalogId the catalog's id
   * @param namespace the encoded namespace to keep, or null for all
   * @param objectName the table or view name to keep, or null for all
   * @param state the state to keep, or null for all
   * @param before the job id the page continues below, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<CleanupJob> page(String catalogId, String namespace, String objectName, CleanupJobState state,
      Long before, int size) {
    return database.jdbi().withHandle(h -> new CleanupJobDao(h).list(catalogId, namespace, objectName, state, before, size));
  }
}
