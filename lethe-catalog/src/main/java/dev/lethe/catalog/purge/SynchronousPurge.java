package dev.lethe.catalog.purge;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.HashSet;
import java.util.Set;
import dev.lethe.catalog.location.LocationPath;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges a table's files on the calling thread: the {@code DELETE …/tables/t?purgeRequested=true}
 * path without the async header (DESIGN.md "Drop paths", issue 2 item 5).
 *
 * <p>Deletes exactly the set {@link PurgePlanner} plans (the set of Iceberg's {@code
 * CatalogUtil.dropTableData}), phase after phase in {@link PurgePhase} order, one {@link
 * FileBatchDeleter} call per batch. With a {@link DeletePool} the batches of a phase run on the
 * pool's threads (and on the calling thread when the pool is full), and every batch of a phase
 * finishes before the next phase starts, so the current metadata file still goes last; without
 * one they run on the calling thread. A failed delete or an unreadable manifest is logged, counted
 * in the {@link PurgeResult}, and stops the purge before the next phase, so the metadata stays.
 * Files outside the table's roots are kept and counted, and before the current metadata file goes
 * the table's roots are swept ({@link LocationSweep}; docs/design/0003-purge-sweep-and-kept-files.md).
 *
 * <p>Immutable and thread-safe; one instance may serve all requests.
 */
public final class SynchronousPurge {
  private static final Logger LOG = LoggerFactory.getLogger(SynchronousPurge.class);

  private final PurgePlanner planner;
  private final DeletePool deletes;

  /**
   * A purge with {@link PurgePlanner#DEFAULT_BATCH_SIZE} paths per delete call, on the calling
   * thread.
   */
  public SynchronousPurge() {
    this(new PurgePlanner());
  }

  /**
   * A purge that plans with {@code planner} and deletes on the calling thread.
   *
   * @param planner the planner (batch size, dedupe window, missing manifest list policy), not null
   */
  public SynchronousPurge(PurgePlanner planner) {
    this(planner, null);
  }

  /**
   * A purge that plans with {@code planner} and deletes each phase's batches on {@code deletes}.
   *
   * @param planner the planner (batch size, dedupe window, missing manifest list policy), not null
   * @param deletes the server's delete pool (shared with the asynchronous purge), or null to
   *     delete on the calling thread
   */
  public SynchronousPurge(PurgePlanner planner, DeletePool deletes) {
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
    KeptFiles kept = new KeptFiles(0);
    long swept = 0;
    boolean stopped = false;
    for (PurgePhase phase : plan.phases()) {
      if (phase == PurgePhase.CURRENT_METADATA_FILE) {
        // rule 4: whatever the metadata did not name goes too, the current metadata file last
        Set<LocationPath> keep = new HashSet<>();
        LocationPath.tryParse(metadata.metadataFileLocation()).ifPresent(keep::add);
        LocationSweep.Result r = LocationSweep.sweep(io, plan.sweepScope(), keep, planner.batchSize(), () -> false);
        swept = r.deleted();
        if (r.failed() > 0) {
          LOG.warn("Purge of {} stopped before its metadata file: the sweep could not delete {} files, e.g. {}",
              metadata.location(), r.failed(), r.examples());
          failed.put(phase, (int) Math.min(Integer.MAX_VALUE, r.failed()));
          stopped = true;
          break;
        }
      }
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
              },
              kept)) {
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
      if (!unreadable.isEmpty() || phaseFailed > 0) {
        // rule 4: a manifest it needs is unreadable, or files stayed: the manifests and the metadata
        // stay, so the table remains walkable (docs/design/0003-purge-sweep-and-kept-files.md §3)
        stopped = true;
        break;
      }
    }
    if (!stopped) {
      LocationPath.tryParse(metadata.metadataFileLocation())
          .ifPresent(m -> LocationSweep.removeEmptyParents(m, plan.sweepScope()));
    }
    PurgeResult result = new PurgeResult(plan.gcEnabled(), deleted, failed, unreadable, plan.missingManifestLists(),
        kept.count(), swept);
    if (kept.count() > 0) {
      LOG.warn("Purge of table metadata {}: {}", metadata.metadataFileLocation(), kept.summary());
    }
    LOG.info(
        "Purged table metadata {}: {} files deleted ({} by the sweep), {} failed, {} unreadable manifests, {} kept",
        metadata.metadataFileLocation(),
        result.totalDeleted(),
        swept,
        result.totalFailed(),
        unreadable.size(),
        kept.count());
    return result;
  }
}
