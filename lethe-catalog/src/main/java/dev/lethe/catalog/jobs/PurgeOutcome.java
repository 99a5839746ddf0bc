package dev.lethe.catalog.jobs;

/**
 * What one run of a cleanup job ended with (docs/design/0201-cleanup-jobs.md §6); {@link PurgeTransition#next}
 * turns it into the row's next state.
 */
public sealed interface PurgeOutcome {
  /** Every planned file is gone (or was already gone). */
  record Completed(long filesDeleted) implements PurgeOutcome {}

  /**
   * A failure a later attempt may overcome: an unreachable store, files that could not be deleted,
   * an unreadable manifest list.
   *
   * @param reason one line, never containing credentials
   */
  record Transient(String reason) implements PurgeOutcome {}

  /**
   * A failure no retry can fix: the metadata file is missing (while other files remain) or cannot
   * be parsed, the stored FileIO cannot be rebuilt.
   *
   * @param reason one line, never containing credentials
   */
  record Terminal(String reason) implements PurgeOutcome {}

  /** The heartbeat CAS failed: another worker owns the job now; this worker writes nothing. */
  record LeaseLost() implements PurgeOutcome {}

  /**
   * The worker is shutting down and stopped between batches: the job goes back to {@code PENDING}
   * at once, without counting an attempt, so any replica can take it over without waiting for the
   * heartbeat timeout.
   */
  record Released() implements PurgeOutcome {}

  /**
   * A legal hold covers the job's table (docs/design/0444-legal-holds.md): the run stopped before
   * the next phase deleted anything; the job goes back to {@code PENDING} without counting an
   * attempt and waits {@code waitMs} (or until a release wakes it).
   *
   * @param reason names the hold
   * @param waitMs ms before the job is claimable again, at least 1
   */
  record Held(String reason, long waitMs) implements PurgeOutcome {}
}
