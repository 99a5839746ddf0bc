package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Every rule of the soft deletion as pure functions (docs/design/0202-soft-deletion.md
 * §1–§7): the recoverability predicate, what a drop, a restore, a purge claim and a
 * finalization do given the rows read under their locks, and the valid retention window. No I/O:
 * {@link SoftDeletes} fetches the rows (locking record, then table row), calls a planner method and
 * applies its decision.
 *
 * <p>Times are ms since epoch on the database clock, read once per transaction ({@code now}). The
 * deadline {@code retention_expires_at} is exclusive for restore and inclusive for purge, so no
 * instant allows both.
 */
public final class SoftDeletePlanner {
  /** Longest retention: 90 days in ms (7776000000). */
  public static final long MAX_RETENTION_MS = 90L * 24 * 60 * 60 * 1000;
  /** Default retention: 24 hours in ms. */
  public static final long DEFAULT_RETENTION_MS = 24L * 60 * 60 * 1000;

  private SoftDeletePlanner() {}

  /**
   * Checks a retention window (docs/design/0202-soft-deletion.md §8: 0 to 90 days; 0 means a drop is expired at once).
   *
   * @return {@code retentionMs}
   * @throws IllegalArgumentException naming the value and the range
   */
  public static long validateRetention(long retentionMs) {
    if (retentionMs < 0 || retentionMs > MAX_RETENTION_MS) {
      throw new IllegalArgumentException("retention must be 0.." + MAX_RETENTION_MS + " ms (90 days), got " + retentionMs);
    }
    return retentionMs;
  }

  /**
   * The recoverability predicate (docs/design/0202-soft-deletion.md §4): {@code state = 'DELETED' AND now < retention_expires_at AND
   * purge_job_id IS NULL}.
   */
  public static boolean recoverable(DeletionRecord record, long now) {
    return recoverable(record, now, false);
  }

  /**
   * As {@link #recoverable(DeletionRecord, long)}, where {@code held} says a legal hold covers the
   * table: a held record no purge claimed stays recoverable past its deadline, as {@link
   * #planRestore(Optional, Optional, long, boolean)} restores it (docs/design/0444-legal-holds.md).
   */
  public static boolean recoverable(DeletionRecord record, long now, boolean held) {
    return record.state() == DeletionState.DELETED && (now < record.retentionExpiresAt() || held)
        && record.purgeJobId() == null;
  }

  /**
   * Whether a purge may claim the record (docs/design/0202-soft-deletion.md §6): {@code DELETED}, no job, and the deadline reached
   * ({@code now >= retention_expires_at}, inclusive).
   */
  public static boolean expired(DeletionRecord record, long now) {
    return record.state() == DeletionState.DELETED && record.purgeJobId() == null && now >= record.retentionExpiresAt();
  }

  // ---- drop ----

  /** What a drop with soft delete on does (docs/design/0202-soft-deletion.md §4 "Drop"). */
  public sealed interface DropDecision permits NoTable, AlreadyDropped, CreateRecord {}

  /** No table holds the name: 404, nothing changes. */
  public record NoTable() implements DropDecision {}

  /** A replayed drop: the row already points at {@code deletionId}; nothing is created (404 to the caller). */
  public record AlreadyDropped(String deletionId) implements DropDecision {}

  /** Insert {@code record} and point the row at it. */
  public record CreateRecord(DeletionRecord record) implements DropDecision {}

  /**
   * @param nameHolder the row holding the name (live or retained), read under its row lock
   * @param newDeletionId id for a new record
   * @param now database time of the drop transaction
   * @param retentionMs the configured window, valid per {@link #validateRetention}
   * @param deletedBy principal ({@code anonymous} when auth is off)
   * @param purgeRequested the drop's {@code purgeRequested}, captured for the purge at expiry
   */
  public static DropDecision planDrop(Optional<TableRow> nameHolder, String newDeletionId, long now, long retentionMs,
      String deletedBy, boolean purgeRequested) {
    validateRetention(retentionMs);
    if (nameHolder.isEmpty() || nameHolder.get().deletedAt() != 0) {
      return new NoTable();
    }
    TableRow row = nameHolder.get();
    if (row.deletionId() != null) {
      return new AlreadyDropped(row.deletionId());
    }
    return new CreateRecord(new DeletionRecord(newDeletionId, DeletionRecord.TABLE, row.tableId(), DeletionState.DELETED,
        now, now + retentionMs, deletedBy, purgeRequested, null));
  }

  // ---- restore ----

  /** What a restore does (docs/design/0202-soft-deletion.md §4 "Restore"). */
  public sealed interface RestoreDecision permits NoRetainedDeletion, Gone, Hollow, Restore {}

  /** 404: no retained deletion (none, already restored, purged, or the table is live). */
  public record NoRetainedDeletion(String reason) implements RestoreDecision {}

  /** 410: the deadline has passed or a purge owns the record. */
  public record Gone(String reason) implements RestoreDecision {}

  /**
   * 409: a file the table needs to be read is gone, deleted outside the catalog; restoring it would
   * give back a table nobody can read ({@link ReadableFiles}, docs/design/0301-hollow-restore.md).
   */
  public record Hollow(String reason) implements RestoreDecision {}

  /** Clear the row's pointer, then remove the record. */
  public record Restore(DeletionRecord record, TableRow row) implements RestoreDecision {}

  /**
   * @param record the record, read under its row lock (first lock)
   * @param row the table row of {@code record.entityId()}, read under its row lock (second lock)
   * @param now database time of the restore transaction
   */
  public static RestoreDecision planRestore(Optional<DeletionRecord> record, Optional<TableRow> row, long now) {
    return planRestore(record, row, now, false);
  }

  /**
   * As {@link #planRestore(Optional, Optional, long)}, where {@code held} says a legal hold covers
   * the table: a held record no purge claimed stays restorable past its deadline, since the expiry
   * skips it (docs/design/0444-legal-holds.md).
   */
  public static RestoreDecision planRestore(Optional<DeletionRecord> record, Optional<TableRow> row, long now,
      boolean held) {
    if (record.isEmpty()) {
      return new NoRetainedDeletion("no retained deletion");
    }
    DeletionRecord r = record.get();
    if (!pointsAt(row, r)) {
      return new NoRetainedDeletion("the table row no longer points at deletion " + r.deletionId());
    }
    if (r.state() == DeletionState.PURGING || r.purgeJobId() != null) {
      return new Gone("a purge owns it (cleanup job " + r.purgeJobId() + ")");
    }
    if (now >= r.retentionExpiresAt() && !held) {
      return new Gone("its retention deadline passed at " + Instant.ofEpochMilli(r.retentionExpiresAt()));
    }
    return new Restore(r, row.get());
  }

  // ---- purge claim ----

  /** What the purge claim does with one record (docs/design/0202-soft-deletion.md §6 phase 1). */
  public sealed interface ClaimDecision permits NotClaimable, AlreadyClaimed, EnqueuePurge, RemoveMetadata, Held {}

  /**
   * A legal hold covers the retained table (docs/design/0444-legal-holds.md): nothing changes; the
   * timer skips the record until the hold is released, a purge-now is refused with 409.
   */
  public record Held(DeletionRecord record, HoldDao.Hold hold) implements ClaimDecision {}

  /** Leave the record as it is (gone, or not expired yet). */
  public record NotClaimable(String reason) implements ClaimDecision {}

  /** A purge owns it already; nothing to do (no second job). */
  public record AlreadyClaimed(DeletionRecord record) implements ClaimDecision {}

  /**
   * {@code purge_requested=true}: insert a cleanup job for the row's metadata location, then CAS the
   * record {@code DELETED → PURGING} with the job's id. The files go in phase 2; finalization after.
   */
  public record EnqueuePurge(DeletionRecord record, TableRow row) implements ClaimDecision {}

  /**
   * {@code purge_requested=false} (or a record whose row is not its own any more): no file is
   * deleted, so no job; remove the row (if {@code removeTableRow}) and then the record, now, in the
   * claim transaction.
   */
  public record RemoveMetadata(DeletionRecord record, boolean removeTableRow) implements ClaimDecision {}

  /**
   * @param record the record, read under its row lock (first lock)
   * @param row the table row of {@code record.entityId()}, read under its row lock (second lock)
   * @param now database time of the claim transaction
   * @param immediate true for the admin purge-now: the deadline is not waited for
   */
  public static ClaimDecision planClaim(Optional<DeletionRecord> record, Optional<TableRow> row, long now, boolean immediate) {
    return planClaim(record, row, now, immediate, Optional.empty());
  }

  /**
   * As {@link #planClaim(Optional, Optional, long, boolean)}, where {@code hold} is the legal hold
   * covering the record's table at {@code now}, read in the claim's transaction: a claim that would
   * enqueue the purge or remove the table row is {@link Held} instead.
   */
  public static ClaimDecision planClaim(Optional<DeletionRecord> record, Optional<TableRow> row, long now,
      boolean immediate, Optional<HoldDao.Hold> hold) {
    ClaimDecision d = planClaimUnheld(record, row, now, immediate);
    boolean touchesTable = d instanceof EnqueuePurge || (d instanceof RemoveMetadata m && m.removeTableRow());
    return touchesTable && hold.isPresent() ? new Held(record.get(), hold.get()) : d;
  }

  private static ClaimDecision planClaimUnheld(Optional<DeletionRecord> record, Optional<TableRow> row, long now,
      boolean immediate) {
    if (record.isEmpty()) {
      return new NotClaimable("no such deletion record (restored or purged)");
    }
    DeletionRecord r = record.get();
    if (r.state() == DeletionState.PURGING || r.purgeJobId() != null) {
      return new AlreadyClaimed(r);
    }
    if (!immediate && now < r.retentionExpiresAt()) {
      return new NotClaimable("recoverable until " + Instant.ofEpochMilli(r.retentionExpiresAt()));
    }
    if (!pointsAt(row, r)) {
      // never touch a row that is not this record's: only the stray record goes
      return new RemoveMetadata(r, false);
    }
    return r.purgeRequested() ? new EnqueuePurge(r, row.get()) : new RemoveMetadata(r, true);
  }

  // ---- finalization ----

  /**
   * What finalization expects to remove: read before the transaction, re-checked under the locks.
   *
   * @param tableId the record's {@code entity_id}
   * @param deletionId the record
   * @param purgeJobId the job attached by the claim
   */
  public record FinalizeTarget(String tableId, String deletionId, long purgeJobId) {
    /** Rejects nulls. */
    public FinalizeTarget {
      Objects.requireNonNull(tableId, "tableId");
      Objects.requireNonNull(deletionId, "deletionId");
    }
  }

  /** What finalization does (docs/design/0202-soft-deletion.md §6 phase 3). */
  public sealed interface FinalizeDecision permits Finalize, KeepRecord {}

  /** Remove the table row (if {@code removeTableRow}) and then the record. */
  public record Finalize(boolean removeTableRow) implements FinalizeDecision {}

  /** Change nothing. */
  public record KeepRecord(String reason) implements FinalizeDecision {}

  /**
   * The finalization predicate (docs/design/0202-soft-deletion.md §6): the record is still {@code PURGING} with the same deletion id,
   * table id and job id, and that job is {@code SUCCEEDED}. The table row goes only if it still has
   * that table id and points at that deletion, so a table restored and dropped again is never
   * destroyed by an earlier generation's job.
   *
   * @param record the record, read under its row lock (first lock)
   * @param row the table row of {@code expected.tableId()}, read under its row lock (second lock)
   * @param job the cleanup job of {@code expected.purgeJobId()}
   */
  public static FinalizeDecision planFinalize(FinalizeTarget expected, Optional<DeletionRecord> record,
      Optional<TableRow> row, Optional<CleanupJob> job) {
    if (record.isEmpty()) {
      return new KeepRecord("deletion " + expected.deletionId() + " no longer exists");
    }
    DeletionRecord r = record.get();
    if (!r.deletionId().equals(expected.deletionId()) || !r.entityId().equals(expected.tableId())
        || r.state() != DeletionState.PURGING || !Objects.equals(r.purgeJobId(), expected.purgeJobId())) {
      return new KeepRecord("deletion " + r.deletionId() + " is not claimed by cleanup job " + expected.purgeJobId());
    }
    if (job.isEmpty() || job.get().jobId() != expected.purgeJobId()) {
      return new KeepRecord("cleanup job " + expected.purgeJobId() + " does not exist");
    }
    if (job.get().state() != CleanupJobState.SUCCEEDED) {
      return new KeepRecord("cleanup job " + expected.purgeJobId() + " is " + job.get().state());
    }
    boolean ownRow = row.isPresent() && row.get().tableId().equals(expected.tableId())
        && expected.deletionId().equals(row.get().deletionId());
    return new Finalize(ownRow);
  }

  private static boolean pointsAt(Optional<TableRow> row, DeletionRecord r) {
    return row.isPresent() && row.get().tableId().equals(r.entityId()) && r.deletionId().equals(row.get().deletionId());
  }
}
