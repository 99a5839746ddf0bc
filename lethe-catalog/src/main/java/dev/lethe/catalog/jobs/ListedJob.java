package dev.lethe.catalog.jobs;

/**
 * A job as the listing shows it: the row and what its lease looks like now
 * (docs/design/0445-job-progress-and-receipts.md).
 *
 * @param job the row
 * @param leaseAgeMs ms since the lease's last heartbeat, on the database clock; null when the job
 *     holds no lease (not {@code RUNNING})
 * @param stale true when the job is {@code RUNNING} and its heartbeat is older than the heartbeat
 *     timeout (or missing): its worker stopped, and the job waits to be reclaimed
 */
public record ListedJob(CleanupJob job, Long leaseAgeMs, boolean stale) {
  /**
   * The lease of {@code job} as of {@code now}: a pure function of the row, the clock and the timeout.
   *
   * @param now ms since epoch, database clock
   * @param heartbeatTimeoutMs the {@link AsyncPurgeSettings#heartbeatTimeoutMs()} setting
   */
  public static ListedJob of(CleanupJob job, long now, long heartbeatTimeoutMs) {
    if (job.state() != CleanupJobState.RUNNING) {
      return new ListedJob(job, null, false);
    }
    Long hb = job.heartbeatAt();
    Long age = hb == null ? null : Math.max(0, now - hb);
    // the same rule as the claim's: heartbeat_at < now - timeout (CleanupJobDao CLAIMABLE)
    boolean stale = hb == null || hb < now - heartbeatTimeoutMs;
    return new ListedJob(job, age, stale);
  }
}
