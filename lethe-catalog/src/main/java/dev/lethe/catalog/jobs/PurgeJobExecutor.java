package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed cleanup job to its outcome and writes that outcome: the one executor of every
 * purge (docs/design/0051-synchronous-purge-is-a-durable-job.md). The worker pool
 * calls it for the jobs it claims; the synchronous purge calls it on the request thread for the job
 * it inserted already claimed. Either way: the lease is renewed by this process's one {@link
 * LeaseHeartbeat}, the work is done by the same {@link JobHandler} (for a purge: same order, same
 * stop-before-metadata failure policy), the row change is the one {@link PurgeTransition} decides
 * (with the {@link RetryBackoff} wait), written with a compare-and-set on the lease, and a
 * {@code SUCCEEDED} job releases its location claims in that same transaction (a {@code FAILED} one
 * keeps them: a retry may run it again). No file is deleted before the
 * transaction that dropped the entry and wrote the job is durable ({@link
 * CatalogDatabase#awaitDurable()}), whichever path enqueued it.
 */
public final class PurgeJobExecutor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PurgeJobExecutor.class);

  private final CatalogDatabase database;
  private final AsyncPurgeSettings settings;
  private final JobHandler handler;
  private final PurgeEventListener listener;
  private final PurgeMetrics metrics;
  private final LeaseHeartbeat heartbeat;
  private final DatabaseClock clock;

  /**
   * Starts the heartbeat task (every {@code heartbeat-timeout-ms / 3}).
   *
   * @param metrics meters to update, or null for none
   */
  public PurgeJobExecutor(CatalogDatabase database, AsyncPurgeSettings settings, JobHandler handler,
      PurgeEventListener listener, PurgeMetrics metrics) {
    this.database = database;
    this.settings = settings;
    this.handler = handler;
    this.listener = listener;
    this.metrics = metrics;
    this.clock = DatabaseClock.of(database.vendor());
    this.heartbeat = new LeaseHeartbeat(database, settings.heartbeatIntervalMs());
  }

  /**
   * How a run ended for the caller.
   *
   * @param job the job as claimed
   * @param state the state written; {@code RUNNING} if the lease was lost (another process owns the
   *     job now and writes its outcome)
   * @param lastError the reason written with a failure, else null
   * @param filesDeleted files this run deleted (when it completed)
   * @param receipt the receipt written with a terminal state, else null
   *     (docs/design/0445-job-progress-and-receipts.md)
   */
  public record Finished(CleanupJob job, CleanupJobState state, String lastError, long filesDeleted,
      CleanupReceipt receipt) {
    /** A run that wrote no receipt. */
    public Finished(CleanupJob job, CleanupJobState state, String lastError, long filesDeleted) {
      this(job, state, lastError, filesDeleted, null);
    }
  }

  /** The settings (retry, heartbeat) this executor applies. */
  public AsyncPurgeSettings settings() {
    return settings;
  }

  /**
   * Runs the claimed job on the calling thread and writes its outcome.
   *
   * @param stopNow true if the caller is shutting down: the job is handed back {@code PENDING}
   *     without deleting anything
   */
  public Finished execute(JobClaimer.Claimed claimed, boolean stopNow) {
    CleanupJob job = claimed.job();
    Lease lease = claimed.lease();
    heartbeat.track(lease);
    if (stopNow) {
      lease.requestStop();
    }
    try {
      emit(new PurgeEvent.PurgeStarted(job));
      PurgeOutcome outcome;
      try {
        // docs/design/0054-no-file-deleted-before-the-drop-is-durable.md
        database.awaitDurable();
        outcome = handler.run(job, lease);
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
          attempts -> settings.retryDelayMs(attempts, bound -> ThreadLocalRandom.current().nextLong(bound)));
      if (!(decision instanceof PurgeTransition.Write write)) {
        LOG.warn("Cleanup job {}: lease lost; another worker owns it now", job.jobId());
        return new Finished(job, CleanupJobState.RUNNING, null, 0);
      }
      CleanupReceipt[] receipt = {null};
      CleanupJob[] ended = {job};
      boolean applied = database.background().inTransaction(h -> {
        long now = clock.millis(h);
        boolean written = lease.writeGuarded(last -> new CleanupJobDao(h).finish(job.jobId(), last, write, now), null);
        if (written && !write.state().holdsLocations()) {
          // rule 2: a SUCCEEDED job no longer holds the dropped table's locations (same transaction); a FAILED
          // one keeps them until an operator retries, abandons or rescues it
          // docs/design/0446-a-failed-job-keeps-its-locations.md
          LocationClaims.release(h, ClaimOwner.job(job.jobId()));
        }
        if (written && !write.state().active()) {
          // docs/design/0445-job-progress-and-receipts.md: the receipt commits with the end, or neither does
          receipt[0] = CleanupReceipts.write(h, job.jobId(), now);
          // the end events carry the job as it ended (state, attempts, last error), not as it was claimed
          ended[0] = new CleanupJobDao(h).find(job.jobId()).orElse(job);
        }
        return written;
      });
      if (!applied) {
        LOG.warn("Cleanup job {}: lease lost before its outcome ({}) could be written", job.jobId(), write.state());
        return new Finished(job, CleanupJobState.RUNNING, null, 0);
      }
      long files = outcome instanceof PurgeOutcome.Completed c ? c.filesDeleted() : 0;
      if (write.state() == CleanupJobState.SUCCEEDED) {
        if (metrics != null) {
          metrics.jobCompleted();
        }
        emit(new PurgeEvent.PurgeCompleted(ended[0], files, receipt[0]));
      } else if (write.state() == CleanupJobState.FAILED) {
        if (metrics != null) {
          metrics.jobFailed();
        }
        emit(new PurgeEvent.PurgeFailed(ended[0], write.lastError(), receipt[0]));
      } else if (outcome instanceof PurgeOutcome.Released) {
        LOG.info("Cleanup job {} handed back as PENDING: this server is stopping", job.jobId());
      } else {
        LOG.info("Cleanup job {} will be retried in {} ms (attempt {} of {}): {}", job.jobId(), write.retryDelayMs(),
            write.attempts(), settings.maxAttempts(), write.lastError());
      }
      return new Finished(job, write.state(), write.state() == CleanupJobState.SUCCEEDED ? null : write.lastError(), files,
          receipt[0]);
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

  /** Ids of the jobs this process holds a lease on now. */
  public Set<Long> ownedJobIds() {
    return heartbeat.ownedJobIds();
  }

  /** Asks every run in progress to stop after its delete calls in flight (they hand their job back). */
  public void requestStopAll() {
    heartbeat.requestStopAll();
  }

  /** Stops the heartbeat task. */
  @Override
  public void close() {
    heartbeat.close();
  }
}
