package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.jobs.CleanupJobState;

/**
 * A deletion record together with what a reader needs to show it: the name its table row still
 * holds and the state of its purge job.
 *
 * @param record the deletion record
 * @param namespaceId namespace of the retained table row
 * @param tableName the name the retained row holds
 * @param purgeJobState state of {@code record.purgeJobId()}, null when no job is attached
 */
public record RetainedDeletion(DeletionRecord record, String namespaceId, String tableName, CleanupJobState purgeJobState) {}
