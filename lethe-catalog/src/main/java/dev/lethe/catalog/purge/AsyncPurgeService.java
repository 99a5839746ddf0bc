package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeEvent;
import dev.lethe.catalog.jobs.PurgeEventListener;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.PurgeMetrics;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The asynchronous purge of one server process, assembled (docs/design/0200-catalog-architecture.md "Cleanup jobs"): the
 * enqueuer used on request threads, and the delete pool, heartbeat and worker pool that run the
 * jobs. Closing it stops the workers; jobs they were running are reclaimed after the heartbeat
 * timeout by any replica.
 */
public final class AsyncPurgeService implements AutoCloseable {
  private final CleanupJobEnqueuer enqueuer;
  private final PurgeEventListener listener;
  private final DeletePool deletePool;
  private final boolean ownsDeletePool;
  private final PurgeJobExecutor executor;
  private final SynchronousPurge synchronous;
  private final PurgeWorkerPool workers;

  /**
   * A service for embedded use (no server): no worker threads, a delete pool of its own, a random
   * credential key (jobs use their catalog's current properties), meters registered nowhere, events
   * logged. Its synchronous purge is the server's.
   */
  public static AsyncPurgeService embedded(CatalogDatabase database, String metalakeName, Clock clock) {
    AsyncPurgeSettings d = AsyncPurgeSettings.DEFAULTS;
    AsyncPurgeSettings settings = new AsyncPurgeSettings(0, d.deleteThreads(), d.deleteBatchSize(), d.pollIntervalMs(),
        d.heartbeatTimeoutMs(), d.maxAttempts(), d.retentionHours(), d.initialBackoffMs(), d.maxBackoffMs());
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    return new AsyncPurgeService(database, metalakeName, settings, new CredentialCipher(key),
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), new LoggingPurgeEventListener(), clock);
  }

  /**
   * Starts the workers with a delete pool of their own ({@code delete-threads} threads), closed
   * with this service.
   *
   * @param database the catalog database
   * @param metalakeName the metalake served
   * @param settings pool and retry settings
   * @param cipher encrypts captured FileIO properties
   * @param registry where the purge meters are registered
   * @param listener receives purge events
   * @param clock local clock (metrics snapshot age only; job times use the database clock)
   */
  public AsyncPurgeService(CatalogDatabase database, String metalakeName, AsyncPurgeSettings settings,
      CredentialCipher cipher, MeterRegistry registry, PurgeEventListener listener, Clock clock) {
    this(database, metalakeName, settings, cipher, registry, listener, clock, DeletePool.of(settings), true);
  }

  /**
   * Starts the workers on the server-wide delete pool, which the caller also gives the synchronous
   * purge and closes after this service (docs/design/0201-cleanup-jobs.md §5: one bounded pool per server).
   *
   * @param deletePool the shared delete pool, not null; not closed by {@link #close()}
   */
  public AsyncPurgeService(CatalogDatabase database, String metalakeName, AsyncPurgeSettings settings,
      CredentialCipher cipher, MeterRegistry registry, PurgeEventListener listener, Clock clock, DeletePool deletePool) {
    this(database, metalakeName, settings, cipher, registry, listener, clock, deletePool, false);
  }

  private AsyncPurgeService(CatalogDatabase database, String metalakeName, AsyncPurgeSettings settings,
      CredentialCipher cipher, MeterRegistry registry, PurgeEventListener listener, Clock clock, DeletePool deletePool,
      boolean ownsDeletePool) {
    FileIOFactory fileIOFactory = new FileIOFactory();
    PurgeMetrics metrics = new PurgeMetrics(registry, database, clock);
    this.listener = listener;
    this.enqueuer = new CleanupJobEnqueuer(database, metalakeName, cipher, fileIOFactory);
    this.deletePool = Objects.requireNonNull(deletePool, "deletePool");
    this.ownsDeletePool = ownsDeletePool;
    PurgeJobRunner runner = new PurgeJobRunner(database, cipher, fileIOFactory, deletePool, settings.deleteBatchSize(),
        metrics::filesDeleted);
    // one executor for the workers and the synchronous purge: one lease heartbeat, one failure policy
    this.executor = new PurgeJobExecutor(database, settings, runner, listener, metrics);
    this.synchronous = new SynchronousPurge(enqueuer, executor);
    this.workers = new PurgeWorkerPool(database, settings, JobClaimer.forDatabase(database), executor);
  }

  /**
   * The synchronous purge: drops the table, inserts its job claimed by this process in the same
   * transaction, and runs it on the calling thread with the workers' executor. A job left {@code
   * PENDING} by a failed attempt is retried by the workers after the backoff.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if there is no live table
   */
  public PurgeJobExecutor.Finished purgeTable(CatalogRow catalog, TableIdentifier id, String principal) {
    PurgeJobExecutor.Finished finished = synchronous.purgeTable(catalog, id, principal);
    if (finished.state() == CleanupJobState.PENDING) {
      workers.wakeUp();
    }
    return finished;
  }

  /**
   * Drops a table entry and enqueues its purge in one transaction, fires {@link
   * PurgeEvent.DropAccepted} and wakes the workers.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if there is no live table
   */
  public CleanupJob dropTable(CatalogRow catalog, TableIdentifier id, String principal) {
    return accepted(enqueuer.dropTable(catalog, id, principal));
  }

  /**
   * Drops a view entry and enqueues the removal of its metadata file.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchViewException if there is no such view
   */
  public CleanupJob dropView(CatalogRow catalog, TableIdentifier id, String principal) {
    return accepted(enqueuer.dropView(catalog, id, principal));
  }

  private CleanupJob accepted(CleanupJob job) {
    try {
      listener.onEvent(new PurgeEvent.DropAccepted(job));
    } catch (RuntimeException ignored) {
      // a listener never fails a drop that is already committed
    }
    workers.wakeUp();
    return job;
  }

  /** Makes idle workers poll now (e.g. after the soft deletion's expiry enqueued jobs). */
  public void wakeUp() {
    workers.wakeUp();
  }

  /** Ids of the jobs this process holds a lease on. */
  public Set<Long> ownedJobIds() {
    return workers.ownedJobIds();
  }

  @Override
  public void close() {
    try {
      workers.close();
      executor.close();
    } finally {
      if (ownsDeletePool) {
        deletePool.close();
      }
    }
  }
}
