package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import java.util.List;
import java.util.Map;

/**
 * The figures of one catalog that an operator looks at first (docs/design/0450-catalog-summary.md),
 * as {@link CatalogSummaries} read them: several queries in one handle, not one snapshot.
 *
 * @param now the database clock when the reading started, ms since epoch
 * @param jobs the catalog's cleanup jobs per state, every state present
 * @param oldestPendingCreatedAt creation time of the oldest {@code PENDING} job, null when none
 * @param failed the newest {@code FAILED} jobs (job id descending), at most {@link CatalogSummaries#FAILED_SHOWN}
 * @param retainedTables soft-deleted tables in every namespace of the catalog, nested ones included
 * @param nearestDeadline the earliest retention deadline among them (past ones included), null when none
 * @param holds legal holds in force at {@code now}: not released and not past their end
 * @param protections drop protections
 */
public record CatalogSummary(long now, Map<CleanupJobState, Long> jobs, Long oldestPendingCreatedAt,
    List<CleanupJob> failed, long retainedTables, Long nearestDeadline, long holds, long protections) {
  public CatalogSummary {
    jobs = Map.copyOf(jobs);
    failed = List.copyOf(failed);
  }
}
