package dev.lethe.catalog.jobs;

/**
 * Tuning of the asynchronous purge (docs/design/0201-cleanup-jobs.md §10), keys under {@code
 * lethe.iceberg-rest.async-purge.}; the defaults are the design's.
 *
 * @param workerThreads concurrent jobs per server (default 2), at least 0 (0: this server only
 *     enqueues; other replicas purge)
 * @param deleteThreads server-wide file-delete threads (default 4), at least 1
 * @param deleteBatchSize files per bulk delete call (default 1000), at least 1
 * @param pollIntervalMs wait of an idle worker between polls, ms (default 5000), at least 1
 * @param heartbeatTimeoutMs age after which a running job's heartbeat is stale, ms (default
 *     300000), at least 3; heartbeats are written every third of it
 * @param maxAttempts failed attempts before {@code FAILED} (default 5), at least 1
 * @param retentionHours how long terminal rows are kept (default 720), at least 0
 * @param initialBackoffMs wait ceiling after a job's first failed attempt, ms (default 2000), at
 *     least 0; doubled after each further failure ({@link RetryBackoff})
 * @param maxBackoffMs cap of the wait ceiling, ms (default 300000), at least {@code
 *     initialBackoffMs}
 */
public record AsyncPurgeSettings(
    int workerThreads,
    int deleteThreads,
    int deleteBatchSize,
    long pollIntervalMs,
    long heartbeatTimeoutMs,
    int maxAttempts,
    long retentionHours,
    long initialBackoffMs,
    long maxBackoffMs) {

  /** Default {@code retry.initial-backoff-ms}. */
  public static final long DEFAULT_INITIAL_BACKOFF_MS = 2000;
  /** Default {@code retry.max-backoff-ms}. */
  public static final long DEFAULT_MAX_BACKOFF_MS = 300_000;

  /** The defaults. */
  public static final AsyncPurgeSettings DEFAULTS =
      new AsyncPurgeSettings(2, 4, 1000, 5000, 300_000, 5, 720, DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);

  /** Settings with the default retry backoff. */
  public AsyncPurgeSettings(int workerThreads, int deleteThreads, int deleteBatchSize, long pollIntervalMs,
      long heartbeatTimeoutMs, int maxAttempts, long retentionHours) {
    this(workerThreads, deleteThreads, deleteBatchSize, pollIntervalMs, heartbeatTimeoutMs, maxAttempts, retentionHours,
        DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);
  }

  /**
   * Checks the ranges.
   *
   * @throws IllegalArgumentException naming the setting out of range
   */
  public AsyncPurgeSettings {
    require(workerThreads >= 0, "worker-threads", workerThreads);
    require(deleteThreads >= 1, "delete-threads", deleteThreads);
    require(deleteBatchSize >= 1, "delete-batch-size", deleteBatchSize);
    require(pollIntervalMs >= 1, "poll-interval-ms", pollIntervalMs);
    require(heartbeatTimeoutMs >= 3, "heartbeat-timeout-ms", heartbeatTimeoutMs);
    require(maxAttempts >= 1, "max-attempts", maxAttempts);
    require(retentionHours >= 0, "retention-hours", retentionHours);
    require(initialBackoffMs >= 0, "retry.initial-backoff-ms", initialBackoffMs);
    require(maxBackoffMs >= initialBackoffMs, "retry.max-backoff-ms (at least retry.initial-backoff-ms)", maxBackoffMs);
  }

  private static void require(boolean ok, String key, long value) {
    if (!ok) {
      throw new IllegalArgumentException(key + " out of range: " + value);
    }
  }

  /**
   * The wait before the next attempt of a job that has now failed {@code attempts} times.
   *
   * @param random given a bound {@code b >= 1}, a value in {@code [0, b)}
   */
  public long retryDelayMs(int attempts, java.util.function.LongUnaryOperator random) {
    return RetryBackoff.delayMs(attempts, initialBackoffMs, maxBackoffMs, random);
  }

  /** Interval of the heartbeat task: a third of the timeout, so two renewals may be missed. */
  public long heartbeatIntervalMs() {
    return Math.max(1, heartbeatTimeoutMs / 3);
  }
}
