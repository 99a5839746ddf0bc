package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.jobs.CleanupJobState;

/**
 * A retained (soft-deleted) table as readers see it (docs/design/0202-soft-deletion.md §2): the name it holds,
 * its deletion record, the state of the purge job (if any) and whether it is recoverable at the
 * database time of the read. Carries no metadata location and no FileIO properties.
 *
 * @param name the table name the retained row holds
 * @param record its deletion record
 * @param purgeJobState state of the attached cleanup job, null when none is attached
 * @param recoverable {@link SoftDeletePlanner#recoverable} at the time of the read, and false when
 *     the table's current metadata file is gone
 * @param notRecoverableReason why a deletion that is still in its window cannot be restored (its
 *     files were deleted outside the catalog, docs/design/0301-hollow-restore.md), or null
 * @param held whether a legal hold covers it at the time of the read: a held deletion no purge
 *     claimed stays recoverable past its deadline (docs/design/0444-legal-holds.md)
 */
public record DeletedTable(String name, DeletionRecord record, CleanupJobState purgeJobState, boolean recoverable,
    String notRecoverableReason, boolean held) {
  /** A deleted table whose recoverability is the deletion record's alone. */
  public DeletedTable(String name, DeletionRecord record, CleanupJobState purgeJobState, boolean recoverable) {
    this(name, record, purgeJobState, recoverable, null, false);
  }
}
