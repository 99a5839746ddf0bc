package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.PurgePhase;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test helper: deletes exactly the set a {@link PurgePlanner} plans, phase after phase, one {@link
 * FileBatchDeleter} call per batch, best effort (a failed delete or unreadable manifest is counted
 * in the {@link PurgeResult} and the walk goes on). Production purges run through {@link
 * PurgeJobRunner} (one executor, docs/design/0051-synchronous-purge-is-a-durable-job.md); the tests
 * of the planner's file set, batching and phase order use this to drive a plan without a database.
 */
public final class PlanDeleter {
  private static final Logger LOG = LoggerFactory.getLogger(PlanDeleter.class);

  private final PurgePlanner planner;
  private final DeletePool deletes;

  /**
   * A purge with {@link PurgePlanner#DEFAULT_BATCH_SIZE} paths per delete call, on the calling
   * thread.
   */
  public PlanDeleter() {
    this(new PurgePlanner());
  }

  /**
   * A purge that plans with {@code planner} and deletes on the calling thread.
   *
   * @param planner the planner (batch size, dedupe window, missing manifest list policy), not null
   */
  public PlanDeleter(PurgePlanner planner) {
    this(planner, null);
  }

  /**
   * A purge that plans with {@code planner} and deletes each phase's batches on {@code deletes}.
   *
   * @param planner the planner (batch size, dedupe window, missing manifest list policy), not null
   * @param deletes the server's delete pool (shared with the asynchronous purge), or null to
   *     delete on the calling thread
   */
  public PlanDeleter(PurgePlanner planner, DeletePool deletes) {
    this.planner = Objects.requireNonNull(planner, "Cannot create purge: planner is null");
    this.deletes = deletes;
  }

  /**
   * Deletes every file of the table that a purge deletes.
   *
   * @param io the table's FileIO (the catalog's, see {@code dev.lethe.catalog.io.FileIOFactory}),
   *     not null
   * @param metadata the table's current metadata, typically {@code TableMetadataParser.read(io,
   *     metadataLocation)}, not null
   * @return counts per phase; check {@link PurgeResult#complete()} to know whether anything was
   *     left behind
   * @throws org.apache.iceberg.exceptions.NotFoundException if a manifest list does not exist;
   *     nothing has been deleted then (see {@link PurgePlanner#plan})
   * @throws RuntimeException if a manifest list cannot be read; nothing has been deleted then
   */
  public PurgeResult purge(FileIO io, TableMetadata metadata) {
    PurgePlan plan = planner.plan(io, metadata);
    Map<PurgePhase, Integer> deleted = new EnumMap<>(PurgePhase.class);
    Map<PurgePhase, Integer> failed = new EnumMap<>(PurgePhase.class);
    List<ManifestReadFailure> unreadable = new ArrayList<>();
    for (PurgePhase phase : plan.phases()) {
      int phaseDeleted = 0;
      int phaseFailed = 0;
      try (CloseableIterator<List<String>> batches =
          plan.batches(
              phase,
              failure -> {
                LOG.warn(
                    "Failed to read manifest {}: its data and delete files are not deleted: {}",
                    failure.manifestPath(),
                    failure.reason());
                unreadable.add(failure);
              })) {
        List<Future<BatchOutcome>> pending = new ArrayList<>();
        try {
          while (batches.hasNext()) {
            List<String> batch = batches.next();
            if (deletes == null) {
              pending.add(CompletableFuture.completedFuture(FileBatchDeleter.delete(io, phase, batch)));
            } else {
              pending.add(deletes.submit(() -> FileBatchDeleter.delete(io, phase, batch)));
            }
          }
        } finally {
          // every batch of this phase is done before the next phase (or an error) goes on
          for (Future<BatchOutcome> f : pending) {
            BatchOutcome outcome = DeletePool.await(f);
            phaseDeleted += outcome.deleted();
            phaseFailed += outcome.failed();
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("Failed to close purge batches of " + phase, e);
      }
      deleted.put(phase, phaseDeleted);
      failed.put(phase, phaseFailed);
    }
    PurgeResult result =
        new PurgeResult(plan.gcEnabled(), deleted, failed, unreadable, plan.missingManifestLists());
    LOG.info(
        "Purged table metadata {}: {} files deleted, {} failed, {} unreadable manifests",
        metadata.metadataFileLocation(),
        result.totalDeleted(),
        result.totalFailed(),
        unreadable.size());
    return result;
  }
}
