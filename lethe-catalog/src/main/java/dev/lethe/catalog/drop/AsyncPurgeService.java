package dev.lethe.catalog.drop;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeEvent;
import dev.lethe.catalog.jobs.PurgeEventListener;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.PurgeMetrics;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.PurgeJobRunner;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The asynchronous purge of one server process (docs/design/0200-catalog-architecture.md "Cleanup
 * jobs"): the drops that enqueue a job and return at once, and the worker pool that runs the jobs
 * on the process's one {@link PurgeJobExecutor} (the synchronous purge's too,
 * docs/design/0051-synchronous-purge-is-a-durable-job.md). Closing it stops the workers; jobs they
 * were running are reclaimed after the heartbeat timeout by any replica.
 */
public final class AsyncPurgeService implements AutoCloseable {
  private final CleanupJobEnqueuer enqueuer;
  private final PurgeEventListener listener;
  private final PurgeWorkerPool workers;
  private final Owned owned; // null when the workers are the caller's

  /**
   * Starts the workers with an executor and a delete pool ({@code delete-threads} threads) of
   * their own, closed with this service.
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
    this(database, settings, new CleanupJobEnqueuer(database, metalakeName, cipher, new FileIOFactory()), listener,
        new Owned(database, settings, cipher, new PurgeMetrics(registry, database, clock), listener));
  }

  /**
   * The drops of a server, whose composition root builds the workers on the process's one executor
   * (the synchronous purge's too) and closes them.
   *
   * @param enqueuer writes a drop and its job in one transaction
   * @param workers the worker pool, woken after each drop; not closed by {@link #close()}
   */
  public AsyncPurgeService(CleanupJobEnqueuer enqueuer, PurgeWorkerPool workers, PurgeEventListener listener) {
    this.enqueuer = Objects.requireNonNull(enqueuer, "enqueuer");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.workers = Objects.requireNonNull(workers, "workers");
    this.owned = null;
  }

  private AsyncPurgeService(CatalogDatabase database, AsyncPurgeSettings settings, CleanupJobEnqueuer enqueuer,
      PurgeEventListener listener, Owned owned) {
    this.enqueuer = enqueuer;
    this.listener = listener;
    this.workers = new PurgeWorkerPool(database, settings, JobClaimer.forDatabase(database), owned.executor);
    this.owned = owned;
  }

  /** The executor and delete pool of a service that has its own: closed after the workers. */
  private static final class Owned {
    private final DeletePool deletePool;
    private final PurgeJobExecutor executor;

    Owned(CatalogDatabase database, AsyncPurgeSettings settings, CredentialCipher cipher, PurgeMetrics metrics,
        PurgeEventListener listener) {
      this.deletePool = DeletePool.of(settings);
      this.executor = new PurgeJobExecutor(database, settings, new PurgeJobRunner(database, cipher, new FileIOFactory(),
          deletePool, settings.deleteBatchSize(), metrics::filesDeleted), listener, metrics);
    }

    void close() {
      try {
        executor.close();
      } finally {
        deletePool.close();
      }
    }
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

  /** Stops the workers, the executor and the delete pool, if they are this service's own. */
  @Override
  public void close() {
    if (owned == null) {
      return;
    }
    try {
      workers.close();
    } finally {
      owned.close();
    }
  }
}
