package dev.lethe.catalog.jobs;

/**
 * A worker's hold on one claimed job (docs/design/0201-cleanup-jobs.md §5): the heartbeat value this process last
 * wrote. Every write to the job (heartbeat, finish) is a compare-and-set on that value made under
 * this object's lock; the first failed compare marks the lease lost for good and the worker stops
 * deleting.
 */
public final class Lease {
  private final long jobId;
  private long lastWritten;
  private volatile boolean lost;
  private volatile boolean stopRequested;

  /** A lease seeded by the claim's heartbeat value. */
  public Lease(long jobId, long claimedAt) {
    this.jobId = jobId;
    this.lastWritten = claimedAt;
  }

  /** The job held. */
  public long jobId() {
    return jobId;
  }

  /** True once a compare-and-set failed: another worker owns the job. */
  public boolean lost() {
    return lost;
  }

  /** Asks the worker to stop between batches and hand the job back (graceful shutdown). */
  public void requestStop() {
    stopRequested = true;
  }

  /** True once {@link #requestStop} was called. */
  public boolean stopRequested() {
    return stopRequested;
  }

  /** The heartbeat value last written by this owner (ms since epoch, database clock). */
  public synchronized long lastWritten() {
    return lastWritten;
  }

  /** A lease-guarded write: returns whether the database row still matched. */
  @FunctionalInterface
  public interface GuardedWrite {
    /**
     * @param lastWritten the value the row must still hold
     * @return true if the row matched and was written
     */
    boolean write(long lastWritten);
  }

  /**
   * Runs a guarded write under the lease lock; on success records {@code newValue} as the lease
   * (for heartbeats), on failure marks the lease lost.
   *
   * @param newValue the value the write stores into {@code heartbeat_at}, or null if the write
   *     ends the lease (finish)
   * @return false if the lease was already lost or is lost now
   */
  public synchronized boolean writeGuarded(GuardedWrite write, Long newValue) {
    if (lost) {
      return false;
    }
    if (!write.write(lastWritten)) {
      lost = true;
      return false;
    }
    if (newValue != null) {
      lastWritten = newValue;
    }
    return true;
  }
}
