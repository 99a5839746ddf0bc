package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker pool of the asynchronous purge (docs/design/0201-cleanup-jobs.md §5, §6): {@code worker-threads}
 * threads, each claiming one job only when idle and running it with the {@link PurgeJobExecutor}
 * (the synchronous purge's executor too). An idle worker polls
 * every {@code poll-interval-ms} (or at once after {@link #wakeUp}); terminal rows older than
 * {@code retention-hours} are pruned at most once a minute. Between jobs the workers also run the
 * {@link #every periodic tasks} (the soft deletions' expiry); a pool without workers runs those on
 * one thread of its own (docs/design/0210-catalog-drop-and-jobs-layout.md "Periodic tasks").
 */
public final class PurgeWorkerPool implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PurgeWorkerPool.class);
  private static final long PRUNE_EVERY_MS = 60_000;

  private final CatalogDatabase database;
  private final AsyncPurgeSettings settings;
  private final JobClaimer claimer;
  private final PurgeJobExecutor executor;
  private final boolean ownsExecutor;
  private final DatabaseClock clock;
  private final Semaphore wake = new Semaphore(0);
  private final PeriodicTasks periodic;
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean running = true;
  private long lastPrune;

  /**
   * Starts the heartbeat task and the worker threads, with an executor of their own.
   *
   * @param metrics meters to update, or null for none
   */
  public PurgeWorkerPool(CatalogDatabase database, AsyncPurgeSettings settings, JobClaimer claimer,
      JobHandler handler, PurgeEventListener listener, PurgeMetrics metrics) {
    this(database, settings, claimer, new PurgeJobExecutor(database, settings, handler, listener, metrics), true);
  }

  /**
   * Starts the worker threads on a shared executor (the one the synchronous purge uses), which
   * {@link #close()} does not close.
   */
  public PurgeWorkerPool(CatalogDatabase database, AsyncPurgeSettings settings, JobClaimer claimer,
      PurgeJobExecutor executor) {
    this(database, settings, claimer, executor, false);
  }

  private PurgeWorkerPool(CatalogDatabase database, AsyncPurgeSettings settings, JobClaimer claimer,
      PurgeJobExecutor executor, boolean ownsExecutor) {
    this.database = database;
    this.settings = settings;
    this.claimer = claimer;
    this.executor = executor;
    this.ownsExecutor = ownsExecutor;
    this.clock = DatabaseClock.of(database.vendor());
    this.periodic = settings.workerThreads() == 0
        ? PeriodicTasks.onOwnThread("lethe-purge-periodic")
        : new PeriodicTasks(wake::release);
    for (int i = 0; i < settings.workerThreads(); i++) {
      Thread t = new Thread(this::loop, "lethe-purge-worker-" + (i + 1));
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
    LOG.info("Async purge workers started: {} workers, claim={}, heartbeat every {} ms", settings.workerThreads(),
        claimer.name(), settings.heartbeatIntervalMs());
  }

  /** Makes idle workers poll now instead of at their next interval (e.g. right after an enqueue). */
  public void wakeUp() {
    wake.release(Math.max(1, settings.workerThreads()));
  }

  /**
   * Runs {@code task} every {@code intervalMs} between jobs, the first time at once, or sooner after
   * the returned task's {@code wakeUp}; closing the returned task unregisters it.
   *
   * @param task handles its own failures; must end soon after the pool is asked to close
   */
  public PeriodicTasks.Task every(long intervalMs, Runnable task) {
    return periodic.every(intervalMs, task);
  }

  /**
   * Whether the pool runs: not closed, and every worker thread alive (a worker ends only when the
   * pool closes or an {@link Error} escaped its loop). For the server's readiness
   * (docs/design/0430-health-that-tells-the-truth.md).
   */
  public boolean isRunning() {
    if (!running) {
      return false;
    }
    for (Thread t : workers) {
      if (!t.isAlive()) {
        return false;
      }
    }
    return true;
  }

  /** Ids of the jobs this process holds a lease on now. */
  public java.util.Set<Long> ownedJobIds() {
    return executor.ownedJobIds();
  }

  private void loop() {
    while (running) {
      boolean worked = false;
      try {
        periodic.runDue();
        pruneIfDue();
        Optional<JobClaimer.Claimed> claimed = claimer.claim(settings.heartbeatTimeoutMs());
        if (claimed.isPresent()) {
          worked = true;
          runOne(claimed.get());
        }
      } catch (RuntimeException e) {
        if (running) {
          LOG.warn("Purge worker poll failed; retrying after the poll interval: {}", e.toString());
        }
      }
      if (!worked && running) {
        try {
          long nanos = periodic.nanosUntilDue();
          long untilTask = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : (nanos + 999_999) / 1_000_000;
          wake.tryAcquire(Math.min(settings.pollIntervalMs(), untilTask), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void runOne(JobClaimer.Claimed claimed) {
    // claimed while the pool was closing: hand it back at once
    executor.execute(claimed, !running);
  }

  private void pruneIfDue() {
    long nowLocal = System.nanoTime() / 1_000_000;
    synchronized (this) {
      if (lastPrune != 0 && nowLocal - lastPrune < PRUNE_EVERY_MS) {
        return;
      }
      lastPrune = nowLocal;
    }
    int pruned = database.background().withHandle(h ->
        new CleanupJobDao(h).pruneTerminal(clock.millis(h) - TimeUnit.HOURS.toMillis(settings.retentionHours())));
    if (pruned > 0) {
      LOG.info("Pruned {} terminal cleanup jobs older than {} hours", pruned, settings.retentionHours());
    }
  }

  /**
   * Graceful stop: no new claims; each running job stops after its delete calls in flight and goes
   * back to {@code PENDING} without counting an attempt (so any replica takes it over at once).
   * Workers still busy after 30 s are interrupted; their jobs stay {@code RUNNING} and are reclaimed
   * after the heartbeat timeout. Then the heartbeat stops (if this pool owns the executor); a shared
   * executor's synchronous purges in flight are asked to stop as well.
   */
  @Override
  public void close() {
    running = false;
    periodic.close();
    executor.requestStopAll();
    wake.release(workers.size() + 1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Thread t : workers) {
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (Thread t : workers) {
      if (t.isAlive()) {
        t.interrupt();
      }
    }
    for (Thread t : workers) {
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (ownsExecutor) {
      executor.close();
    }
  }
}
