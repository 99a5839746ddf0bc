package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogRow;
import java.util.Objects;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The synchronous purge ({@code DELETE …/tables/t?purgeRequested=true} without the async header) as
 * "enqueue and run now, wait for it" (
 * docs/design/0051-synchronous-purge-is-a-durable-job.md):
 *
 * <ol>
 *   <li>one transaction removes the entry, hands its location claims to a new cleanup job and
 *       inserts that job already claimed by this process ({@link
 *       CleanupJobEnqueuer#dropTableClaimed}) — before any file is touched;
 *   <li>the {@link PurgeJobExecutor} the async workers use runs the job on the calling thread under
 *       that lease: same runner, order, failure policy and retry backoff, same outcome write;
 *   <li>a job a failed attempt left {@code PENDING} wakes the workers, which retry it after the
 *       backoff.
 * </ol>
 *
 * <p>So a commit racing the drop either lands before it (its metadata is what the job purges) or
 * finds no row (404), and a process killed mid-purge leaves a {@code RUNNING} job that any replica
 * reclaims once its heartbeat is stale and finishes. Thread-safe.
 */
public final class SynchronousPurge implements TablePurge {
  private static final Logger LOG = LoggerFactory.getLogger(SynchronousPurge.class);

  private final CleanupJobEnqueuer enqueuer;
  private final PurgeJobExecutor executor;
  private final Runnable wakeWorkers;

  /**
   * @param enqueuer writes the entry removal and the claimed job
   * @param executor the process's job executor (shared with the worker pool)
   * @param wakeWorkers makes the workers poll now ({@link PurgeWorkerPool#wakeUp}); a no-op where
   *     there are none
   */
  public SynchronousPurge(CleanupJobEnqueuer enqueuer, PurgeJobExecutor executor, Runnable wakeWorkers) {
    this.enqueuer = Objects.requireNonNull(enqueuer, "Cannot create synchronous purge: enqueuer is null");
    this.executor = Objects.requireNonNull(executor, "Cannot create synchronous purge: executor is null");
    this.wakeWorkers = Objects.requireNonNull(wakeWorkers, "Cannot create synchronous purge: wakeWorkers is null");
  }

  /**
   * Drops the table and purges its files before returning.
   *
   * @param createdBy principal recorded as the job's {@code createdBy}
   * @return how the run ended: {@code SUCCEEDED}; {@code PENDING} when the attempt failed and the
   *     workers retry it after the backoff; {@code FAILED} on a terminal failure; {@code RUNNING}
   *     when another process took the job over. The entry is gone in every case.
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if there is no live table (nothing
   *     changes)
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException if another entry that can become
   *     live overlaps the table's location (nothing changes)
   */
  @Override
  public PurgeJobExecutor.Finished purgeTable(CatalogRow catalog, TableIdentifier id, String createdBy) {
    JobClaimer.Claimed claimed = enqueuer.dropTableClaimed(catalog, id, createdBy);
    PurgeJobExecutor.Finished finished = executor.execute(claimed, false);
    if (finished.state() != CleanupJobState.SUCCEEDED) {
      LOG.warn("Synchronous purge of {}.{} (cleanup job {}) ended {}; the entry is dropped and {}: {}", catalog.name(), id,
          claimed.job().jobId(), finished.state(), finished.state().active()
              ? "the job is left to the workers" : "files may remain", finished.lastError());
    }
    if (finished.state() == CleanupJobState.PENDING) {
      wakeWorkers.run();
    }
    return finished;
  }
}
