package dev.lethe.catalog.purge;

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
 * The worker pool of the asynchronous purge (async design §5.5, §5.6): {@code worker-threads}
 * threads, each claiming one job only when idle, running it with a {@link PurgeJobRunner} under a
 * {@link Lease} renewed by the process's one {@link LeaseHeartbeat}, and writing the outcome
 * decided by {@link PurgeTransition} with a compare-and-set on the lease. An idle worker polls
 * every {@code poll-interval-ms} (or at once after {@link #wakeUp}); terminal rows older than
 * {@code retention-hours} are pruned at most once a minute.
 */
public final class PurgeWorkerPool implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PurgeWorkerPool.class);
  private static final long PRUNE_EVERY_MS = 60_000;

  private final CatalogDatabase database;
  private final AsyncPurgeSettings settings;
  private final JobClaimer claimer;
  private final PurgeJobRunner runner;
  private final PurgeEventListener listener;
  private final PurgeMetrics metrics;
  private final LeaseHeartbeat heartbeat;
  private final DatabaseClock clock;
  private final Semaphore wake = new Semaphore(0);
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean running = true;
  private long lastPrune;

  /**
   * Starts the heartbeat task and the worker threads.
   *
   * @param metrics meters to update, or null for none
   */
  public PurgeWorkerPool(CatalogDatabase database, AsyncPurgeSettings settings, JobClaimer claimer,
      PurgeJobRunner runner, PurgeEventListener listener, PurgeMetrics metrics) {
    this.database = database;
    this.settings = settings;
    this.claimer = claimer;
    this.runner = runner;
    this.listener = listener;
    this.metrics = metrics;
    this.clock = DatabaseClock.of(database.vendor());
    this.heartbeat = new LeaseHeartbeat(database, settings.heartbeatIntervalMs());
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

  /** Ids of the jobs this process holds a lease on now. */
  public java.util.Set<Long> ownedJobIds() {
    return heartbeat.ownedJobIds();
  }

  private void loop() {
    while (running) {
      boolean worked = false;
      try {
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
          wake.tryAcquire(settings.pollIntervalMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void runOne(JobClaimer.Claimed claimed) {
    CleanupJob job = claimed.job();
    Lease lease = claimed.lease();
    heartbeat.track(lease);
    if (!running) {
      lease.requestStop(); // claimed while the pool was closing
    }
    try {
      emit(new PurgeEvent.PurgeStarted(job));
      PurgeOutcome outcome;
      try {
        outcome = runner.run(job, lease);
      } catch (RuntimeException e) {
        LOG.warn("Cleanup job {} failed", job.jobId(), e);
        outcome = new PurgeOutcome.Transient(e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      if (lease.lost()) {
        outcome = new PurgeOutcome.LeaseLost();
      }
      if (lease.stopRequested() && !(outcome instanceof PurgeOutcome.Completed) && !(outcome instanceof PurgeOutcome.LeaseLost)) {
        outcome = new PurgeOutcome.Released(); // an interrupted run is not a failed attempt
      }
      PurgeTransition.Decision decision = PurgeTransition.next(job, outcome, settings.maxAttempts(),
          attempts -> settings.retryDelayMs(attempts, bound -> java.util.concurrent.ThreadLocalRandom.current().nextLong(bound)));
      if (decision instanceof PurgeTransition.Write write) {
        boolean applied = database.jdbi().inTransaction(h -> {
          long now = clock.millis(h);
          boolean written = lease.writeGuarded(last -> new CleanupJobDao(h).finish(job.jobId(), last, write, now), null);
          if (written && !write.state().active()) {
            // rule 2: an ended job no longer holds the dropped table's locations (same transaction)
            LocationClaims.release(h, ClaimOwner.job(job.jobId()));
          }
          return written;
        });
        if (!applied) {
          LOG.warn("Cleanup job {}: lease lost before its outcome ({}) could be written", job.jobId(), write.state());
          return;
        }
        if (write.state() == CleanupJobState.SUCCEEDED) {
          long files = outcome instanceof PurgeOutcome.Completed c ? c.filesDeleted() : 0;
          if (metrics != null) {
            metrics.jobCompleted();
          }
          emit(new PurgeEvent.PurgeCompleted(job, files));
        } else if (write.state() == CleanupJobState.FAILED) {
          if (metrics != null) {
            metrics.jobFailed();
          }
          emit(new PurgeEvent.PurgeFailed(job, write.lastError()));
        } else if (outcome instanceof PurgeOutcome.Released) {
          LOG.info("Cleanup job {} handed back as PENDING: this server is stopping", job.jobId());
        } else {
          LOG.info("Cleanup job {} will be retried (attempt {} of {}): {}", job.jobId(), write.attempts(),
              settings.maxAttempts(), write.lastError());
        }
      } else {
        LOG.warn("Cleanup job {}: lease lost; another worker owns it now", job.jobId());
      }
    } finally {
      heartbeat.release(lease);
    }
  }

  private void emit(PurgeEvent event) {
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      LOG.warn("Purge event listener failed on {}", event.getClass().getSimpleName(), e);
    }
  }

  private void pruneIfDue() {
    long nowLocal = System.nanoTime() / 1_000_000;
    synchronized (this) {
      if (lastPrune != 0 && nowLocal - lastPrune < PRUNE_EVERY_MS) {
        return;
      }
      lastPrune = nowLocal;
    }
    int pruned = database.jdbi().withHandle(h ->
        new CleanupJobDao(h).pruneTerminal(clock.millis(h) - TimeUnit.HOURS.toMillis(settings.retentionHours())));
    if (pruned > 0) {
      LOG.info("Pruned {} terminal cleanup jobs older than {} hours", pruned, settings.retentionHours());
    }
  }

  /**
   * Graceful stop: no new claims; each running job stops after its delete calls in flight and goes
   * back to {@code PENDING} without counting an attempt (so any replica takes it over at once).
   * Workers still busy after 30 s are interrupted; their jobs stay {@code RUNNING} and are reclaimed
   * after the heartbeat timeout. Then the heartbeat stops.
   */
  @Override
  public void close() {
    running = false;
    heartbeat.requestStopAll();
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
    heartbeat.close();
  }
}
