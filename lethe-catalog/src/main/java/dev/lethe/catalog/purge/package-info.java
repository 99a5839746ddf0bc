/**
 * Table and view purge, the handler of the cleanup-job queue in {@code dev.lethe.catalog.jobs}
 * (docs/design/0210-catalog-drop-and-jobs-layout.md): which files a purge deletes and in which
 * order. Every purge (synchronous, asynchronous, soft-deletion expiry, purge-now) is a job row run
 * by one {@link dev.lethe.catalog.jobs.PurgeJobExecutor}
 * (docs/design/0051-synchronous-purge-is-a-durable-job.md); which drop path a request takes is
 * decided by {@link dev.lethe.catalog.drop.DropPlanner} (docs/design/0052-one-drop-planner.md).
 *
 * <ul>
 *   <li>{@link dev.lethe.catalog.purge.PurgePlanner} reads a table's manifest lists and returns a
 *       {@link dev.lethe.catalog.purge.PurgePlan}: the {@link dev.lethe.catalog.jobs.PurgePhase}s
 *       in delete order, each streamed as bounded batches of paths. The set is exactly the one
 *       Iceberg's {@code CatalogUtil.dropTableData} deletes.
 *   <li>{@link dev.lethe.catalog.purge.PurgeScope} decides, per path, whether a purge may delete it
 *       (inside the dropped table's roots) or keeps and counts it (docs/design/0001-purge-confinement-and-ownership.md §2;
 *       docs/design/0003-purge-sweep-and-kept-files.md); every batch of a plan is filtered
 *       through it.
 *   <li>{@code LocationSweep} deletes what the metadata did not name under the roots and the
 *       emptied directories (rule 4).
 *   <li>{@link dev.lethe.catalog.purge.FileBatchDeleter} deletes one batch through a FileIO (bulk
 *       when supported) and counts "not found" as deleted.
 *   <li>{@link dev.lethe.catalog.purge.PurgeJobRunner} is the handler the executor runs for one
 *       job: a table's phases in order, then the sweep and the metadata last; a view's metadata
 *       files.
 * </ul>
 */
package dev.lethe.catalog.purge;
