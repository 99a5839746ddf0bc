package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.HoldDao.Hold;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The wait of a table purge job under a legal hold (docs/design/0444-legal-holds.md "Jobs"): a
 * claim that finds its job held leaves it {@code PENDING}, with no attempt used, {@code last_error}
 * naming the hold and {@code next_attempt_at} at the hold's end or {@link #RECHECK_MS} later,
 * whichever is sooner; a release makes it claimable at once ({@link CleanupJobDao#wakeHeld}).
 */
public final class HeldJobs {
  /** Longest wait of a held job before its claim looks again (ms). */
  public static final long RECHECK_MS = 60_000;
  /** How {@code last_error} of a job waiting for a hold starts. */
  public static final String REASON_PREFIX = "waiting for legal hold ";

  private HeldJobs() {}

  /** The hold covering the job's table at {@code now} (database clock), read in {@code h}'s transaction; views are never held. */
  public static Optional<Hold> holding(Handle h, CleanupJob job, long now) {
    if (job.objectType() != CleanupObjectType.TABLE) {
      return Optional.empty();
    }
    return new HoldDao(h).covering(job.catalogId(), job.namespace(), job.objectName(), now);
  }

  /**
   * {@link #holding} for a claim: the job's row is locked by the caller (the claim's own lock), then
   * the claims lock is taken before the holds are read, so a hold being placed either committed
   * before (and defers this job) or reads this job {@code RUNNING} (and names it in its answer)
   * (docs/design/0444-legal-holds.md "A hold and a purge racing"). Lock order: job row, then claims
   * lock, as a job's end.
   */
  public static Optional<Hold> holdingAtClaim(Handle h, CleanupJob job, long now) {
    if (job.objectType() != CleanupObjectType.TABLE) {
      return Optional.empty();
    }
    HoldDao holds = new HoldDao(h);
    holds.lock();
    return holds.covering(job.catalogId(), job.namespace(), job.objectName(), now);
  }

  /** The outcome of a run stopped by the hold: back to {@code PENDING} until {@link #waitMs}. */
  public static PurgeOutcome.Held outcome(Hold hold, long now) {
    return new PurgeOutcome.Held(reason(hold), waitMs(hold, now));
  }

  /** The {@code last_error} of a job waiting for {@code hold}. */
  public static String reason(Hold hold) {
    return "waiting for " + hold.describe();
  }

  /** How long (ms) a job waits before its claim looks at the hold again. */
  public static long waitMs(Hold hold, long now) {
    long recheck = RECHECK_MS;
    return hold.expiresAt() == null ? recheck : Math.max(1, Math.min(recheck, hold.expiresAt() - now));
  }
}
