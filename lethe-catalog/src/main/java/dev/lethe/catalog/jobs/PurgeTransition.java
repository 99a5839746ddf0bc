package dev.lethe.catalog.jobs;

import java.util.Objects;

/**
 * The cleanup job state machine as a pure function (docs/design/0201-cleanup-jobs.md §6 table).
 *
 * <table>
 *   <caption>Outcome → row change</caption>
 *   <tr><th>outcome</th><th>row</th></tr>
 *   <tr><td>completed</td><td>{@code SUCCEEDED}, attempts unchanged, last_error cleared</td></tr>
 *   <tr><td>transient, attempts+1 &lt; max</td><td>attempts+1, last_error, {@code PENDING}, heartbeat cleared,
 *       not claimable for the {@link RetryBackoff} wait</td></tr>
 *   <tr><td>transient, attempts+1 reaches max</td><td>attempts+1, last_error, {@code FAILED}</td></tr>
 *   <tr><td>terminal</td><td>attempts+1, last_error, {@code FAILED}</td></tr>
 *   <tr><td>held (a legal hold covers the table)</td><td>{@code PENDING}, attempts unchanged, last_error names the hold,
 *       not claimable for the hold's wait</td></tr>
 *   <tr><td>released (worker shutting down)</td><td>{@code PENDING}, attempts and last_error unchanged, heartbeat cleared</td></tr>
 *   <tr><td>lease lost</td><td>no write (the new owner decides)</td></tr>
 * </table>
 */
public final class PurgeTransition {
  /** Longest {@code last_error} stored; longer reasons are cut and end with "…". */
  public static final int MAX_ERROR_LENGTH = 2048;

  private PurgeTransition() {}

  /** What {@link #next} decided. */
  public sealed interface Decision {}

  /**
   * Write this row change (guarded by the lease).
   *
   * @param state new state
   * @param attempts new attempt count
   * @param lastError new last_error; null clears it (on success, and on a release of a job that had none)
   * @param retryDelayMs for a {@code PENDING} row after a failed attempt, how long (ms, database
   *     clock) no worker may claim it; 0 = claimable at once
   */
  public record Write(CleanupJobState state, int attempts, String lastError, long retryDelayMs) implements Decision {
    /** A write that leaves the row claimable at once. */
    public Write(CleanupJobState state, int attempts, String lastError) {
      this(state, attempts, lastError, 0);
    }
  }

  /** Write nothing: the lease is lost. */
  public record NoWrite() implements Decision {}

  /**
   * @param job the job as claimed (its {@code attempts} and {@code lastError})
   * @param outcome how the run ended
   * @param maxAttempts the {@code max-attempts} setting, at least 1
   */
  public static Decision next(CleanupJob job, PurgeOutcome outcome, int maxAttempts) {
    return next(job, outcome, maxAttempts, attempts -> 0);
  }

  /**
   * @param job the job as claimed (its {@code attempts} and {@code lastError})
   * @param outcome how the run ended
   * @param maxAttempts the {@code max-attempts} setting, at least 1
   * @param backoff the wait (ms) after a job's n-th failed attempt, e.g. {@link
   *     AsyncPurgeSettings#retryDelayMs}
   */
  public static Decision next(CleanupJob job, PurgeOutcome outcome, int maxAttempts,
      java.util.function.IntToLongFunction backoff) {
    Objects.requireNonNull(outcome, "outcome");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max-attempts must be >= 1, got " + maxAttempts);
    }
    if (outcome instanceof PurgeOutcome.Completed) {
      // an earlier attempt's failure is not the job's: a SUCCEEDED row shows none
      // (docs/design/0422-what-a-reader-is-told.md)
      return new Write(CleanupJobState.SUCCEEDED, job.attempts(), null);
    }
    if (outcome instanceof PurgeOutcome.Transient t) {
      int attempts = job.attempts() + 1;
      boolean exhausted = attempts >= maxAttempts;
      String reason = exhausted ? "gave up after " + attempts + " attempts: " + t.reason() : t.reason();
      return exhausted
          ? new Write(CleanupJobState.FAILED, attempts, truncate(reason))
          : new Write(CleanupJobState.PENDING, attempts, truncate(reason), Math.max(0, backoff.applyAsLong(attempts)));
    }
    if (outcome instanceof PurgeOutcome.Held held) {
      // a hold is not a failure: no attempt used (docs/design/0444-legal-holds.md)
      return new Write(CleanupJobState.PENDING, job.attempts(), truncate(held.reason()), Math.max(1, held.waitMs()));
    }
    if (outcome instanceof PurgeOutcome.Released) {
      return new Write(CleanupJobState.PENDING, job.attempts(), job.lastError());
    }
    if (outcome instanceof PurgeOutcome.Terminal t) {
      return new Write(CleanupJobState.FAILED, job.attempts() + 1, truncate(t.reason()));
    }
    return new NoWrite();
  }

  /** Cuts a reason to {@link #MAX_ERROR_LENGTH} characters. */
  static String truncate(String reason) {
    String r = reason == null ? "unknown failure" : reason;
    return r.length() <= MAX_ERROR_LENGTH ? r : r.substring(0, MAX_ERROR_LENGTH - 1) + "…";
  }
}
