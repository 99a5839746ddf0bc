package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.jobs.PeriodicTasks;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import java.util.List;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The expiry of one server process (docs/design/0202-soft-deletion.md §6 phases 1 and 3): a
 * periodic task of the purge workers ({@link PurgeWorkerPool#every}, docs/design/0210-catalog-drop-
 * and-jobs-layout.md "Periodic tasks") that ticks every {@code expiry-interval-ms} (or at once after
 * {@link #wakeUp}). A tick claims expired records in batches of {@link #BATCH_SIZE} ({@link
 * SoftDeletes#expireDue}, one transaction per batch) until none is left, tells {@code jobsEnqueued}
 * when it inserted cleanup jobs (to wake the purge workers), then finalizes records whose job
 * succeeded ({@link SoftDeletes#finalizeSucceeded}). Every replica runs one; row locks and the
 * {@code DELETED → PURGING} compare-and-set keep them from claiming a record twice. A failed tick
 * is logged and retried on the next.
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
  private final PeriodicTasks ownTicks; // null when the purge workers run the ticks
  private final PeriodicTasks.Task task;
  private volatile boolean running = true;

  /**
   * Ticks on the purge workers of this process.
   *
   * @param softDeletes the transactions to run
   * @param jobsEnqueued called after a tick inserted cleanup jobs (e.g. wakes the purge workers);
   *     must not block
   * @param workers the pool whose threads run the ticks; not closed by {@link #close()}
   */
  public SoftDeleteExpiry(SoftDeletes softDeletes, Runnable jobsEnqueued, PurgeWorkerPool workers) {
    this(softDeletes, jobsEnqueued, null, workers::every);
  }

  /**
   * Ticks on a thread of its own: for a process without purge workers (tests, tools).
   *
   * @param softDeletes the transactions to run
   * @param jobsEnqueued called after a tick inserted cleanup jobs; must not block
   */
  public SoftDeleteExpiry(SoftDeletes softDeletes, Runnable jobsEnqueued) {
    this(softDeletes, jobsEnqueued, PeriodicTasks.onOwnThread("lethe-soft-delete-expiry"));
  }

  private SoftDeleteExpiry(SoftDeletes softDeletes, Runnable jobsEnqueued, PeriodicTasks ownTicks) {
    this(softDeletes, jobsEnqueued, ownTicks, ownTicks::every);
  }

  private SoftDeleteExpiry(SoftDeletes softDeletes, Runnable jobsEnqueued, PeriodicTasks ownTicks,
      BiFunction<Long, Runnable, PeriodicTasks.Task> schedule) {
    this.softDeletes = softDeletes;
    this.intervalMs = softDeletes.settings().expiryIntervalMs();
    this.jobsEnqueued = jobsEnqueued;
    this.ownTicks = ownTicks;
    this.task = schedule.apply(intervalMs, this::safeTick);
    LOG.info("Soft deletion expiry timer started: every {} ms, {} records per claim transaction", intervalMs, BATCH_SIZE);
  }

  /** Runs a tick now instead of at the next interval (e.g. after a cleanup job succeeded). */
  public void wakeUp() {
    task.wakeUp();
  }

  private void safeTick() {
    if (!running) {
      return;
    }
    try {
      tick();
    } catch (RuntimeException e) {
      if (running) {
        LOG.warn("Soft deletion expiry tick failed; retrying after {} ms: {}", intervalMs, e.toString());
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

  /** Stops the ticks; a tick in flight finishes its transaction first (up to 30 s). */
  @Override
  public void close() {
    running = false;
    task.close();
    if (ownTicks != null) {
      ownTicks.close();
    }
  }
}
