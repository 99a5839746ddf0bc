package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.purge.CleanupJobState;

/**
 * A retained (soft-deleted) table as readers see it (soft deletion design §5.2): the name it holds,
 * its deletion record, the state of the purge job (if any) and whether it is recoverable at the
 * database time of the read. Carries no metadata location and no FileIO properties.
 *
 * @param name the table name the retained row holds
 * @param record its deletion record
 * @param purgeJobState state of the attached cleanup job, null when none is attached
 * @param recoverable {@link SoftDeletePlanner#recoverable} at the time of the read
 */
public record DeletedTable(String name, DeletionRecord record, CleanupJobState purgeJobState, boolean recoverable) {}
