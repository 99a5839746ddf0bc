package dev.lethe.catalog.softdelete;

/**
 * Stored states of a deletion record (docs/design/0202-soft-deletion.md §1, §3). "Expired" is not stored:
 * it is {@link #DELETED} with the deadline behind it ({@link SoftDeletePlanner#expired}).
 */
public enum DeletionState {
  /** Retained: recoverable until {@code retention_expires_at} (exclusive), unless a purge claimed it. */
  DELETED,
  /** Claimed by a purge: never recoverable again; the name stays reserved until finalization. */
  PURGING
}
