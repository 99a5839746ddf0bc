package dev.lethe.catalog.softdelete;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The expiry timer of one server process (docs/design/0202-soft-deletion.md §6 phases 1 and 3), on the same
 * scheduling style as the purge worker pool: one daemon thread that runs a tick every {@code
 * expiry-interval-ms} (or at once after {@link #wakeUp}). A tick claims expired records in batches
 * of {@link #BATCH_SIZE} ({@link SoftDeletes#expireDue}, one transaction per batch) until none is
 * left, tells {@code jobsEnqueued} when it inserted cleanup jobs (to wake the purge workers), then
 * finalizes records whose job succeeded ({@link SoftDeletes#finalizeSucceeded}). Every replica runs
 * one; row locks and the {@code DELETED → PURGING} compare-and-set keep them from claiming a record
 * twice. A failed tick is logged and retried on the next.
 */
public final class SoftDeleteExpiry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SoftDeleteExpiry.class);
  /** Records claimed per transaction. */
  public static final int BATCH_SIZE = 100;
  /** Batches per tick at most, so a tick ends even under a flood of expiring drops. */
  private static final int MAX_BATCHES_PER_TICK = 100;

  private final SoftDeletes softDeletes;
  private final long intervalMs;
  private final Runnable jobsEnqueued;
  private final Semaphore wake = new Semaphore(0);
  private final Thread thread;
  private volatile boolean running = true;

  /**
   * Starts the timer thread.
   *
   * @param softDeletes the transactions to run
   * @param jobsEnqueued called after a tick inserted cleanup jobs (e.g. wakes the purge workers);
   *     must not block
   */
  public SoftDeleteExpiry(SoftDeletes softDeletes, Runnable jobsEnqueued) {
    this.softDeletes = softDeletes;
    this.intervalMs = softDeletes.settings().expiryIntervalMs();
    this.jobsEnqueued = jobsEnqueued;
    this.thread = new Thread(this::loop, "lethe-soft-delete-expiry");
    thread.setDaemon(true);
    thread.start();
    LOG.info("Soft deletion expiry timer started: every {} ms, {} records per claim transaction", intervalMs, BATCH_SIZE);
  }

  /** Runs a tick now instead of at the next interval (e.g. after a cleanup job succeeded). */
  public void wakeUp() {
    wake.release();
  }

  private void loop() {
    while (running) {
      try {
        tick();
      } catch (RuntimeException e) {
        if (running) {
          LOG.warn("Soft deletion expiry tick failed; retrying after {} ms: {}", intervalMs, e.toString());
        }
      }
      try {
        wake.tryAcquire(intervalMs, TimeUnit.MILLISECONDS);
        wake.drainPermits();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One tick: claim every expired record (batch by batch), then finalize purged ones. */
  void tick() {
    int enqueued = 0;
    for (int i = 0; i < MAX_BATCHES_PER_TICK && running; i++) {
      List<SoftDeletes.Claimed> claimed = softDeletes.expireDue(BATCH_SIZE);
      enqueued += (int) claimed.stream().filter(c -> c.decision() instanceof SoftDeletePlanner.EnqueuePurge).count();
      if (claimed.size() < BATCH_SIZE) {
        break;
      }
    }
    if (enqueued > 0) {
      jobsEnqueued.run();
    }
    while (running && softDeletes.finalizeSucceeded(BATCH_SIZE) == BATCH_SIZE) {
      // more may be waiting
    }
  }

  /** Stops the timer; a tick in flight finishes its transaction first (up to 30 s). */
  @Override
  public void close() {
    running = false;
    wake.release();
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
    }
  }
}
