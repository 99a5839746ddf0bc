/**
 * Table purge: which files a purge deletes, in which order, and the synchronous purge that
 * applies that plan (DESIGN.md "Drop paths"; issue 2 item 5, reused by the asynchronous purge of
 * issue 3).
 *
 * <ul>
 *   <li>{@link dev.lethe.catalog.purge.PurgePlanner} reads a table's manifest lists and returns a
 *       {@link dev.lethe.catalog.purge.PurgePlan}: the {@link dev.lethe.catalog.purge.PurgePhase}s
 *       in delete order, each streamed as bounded batches of paths. The set is exactly the one
 *       Iceberg's {@code CatalogUtil.dropTableData} deletes.
 *   <li>{@link dev.lethe.catalog.purge.PurgeScope} decides, per path, whether a purge may delete it
 *       (inside the dropped table's roots) or keeps and counts it (issue 9 rule 1;
 *       docs/design/0003-purge-sweep-and-kept-files.md); every batch of a plan is filtered
 *       through it.
 *   <li>{@code LocationSweep} deletes what the metadata did not name under the roots and the
 *       emptied directories (rule 4).
 *   <li>{@link dev.lethe.catalog.purge.FileBatchDeleter} deletes one batch through a FileIO (bulk
 *       when supported) and counts "not found" as deleted.
 *   <li>{@link dev.lethe.catalog.purge.SynchronousPurge} runs every phase on the calling thread
 *       and returns a {@link dev.lethe.catalog.purge.PurgeResult}.
 * </ul>
 */
package dev.lethe.catalog.purge;
