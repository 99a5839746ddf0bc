package dev.lethe.catalog.purge;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files one purge deletes, grouped in {@link PurgePhase}s, made by {@link
 * PurgePlanner#plan}.
 *
 * <p>Consumers run the phases of {@link #phases()} in order and finish every batch of a phase
 * before starting the next one; that is what keeps a partly purged table walkable. Every batch
 * holds between 1 and {@link PurgePlanner#batchSize()} paths.
 *
 * <p>Only manifests and manifest lists are held in memory (one entry per distinct manifest).
 * Data and delete file paths are read from one manifest at a time while {@link
 * PurgePhase#DATA_AND_DELETE_FILES} batches are consumed.
 *
 * <p>A plan may be iterated more than once; each {@link #batches} call returns a fresh
 * iterator. Iterators are not thread-safe: consume one from a single thread and hand the batches
 * to other threads if desired.
 */
public final class PurgePlan {
  private static final Logger LOG = LoggerFactory.getLogger(PurgePlan.class);

  private final FileIO io;
  private final TableMetadata metadata;
  private final boolean gcEnabled;
  private final List<ManifestFile> manifests;
  private final List<String> manifestLists;
  private final List<String> missingManifestLists;
  private final int batchSize;
  private final int dedupeWindow;

  PurgePlan(
      FileIO io,
      TableMetadata metadata,
      boolean gcEnabled,
      List<ManifestFile> manifests,
      List<String> manifestLists,
      List<String> missingManifestLists,
      int batchSize,
      int dedupeWindow) {
    this.io = io;
    this.metadata = metadata;
    this.gcEnabled = gcEnabled;
    this.manifests = manifests;
    this.manifestLists = manifestLists;
    this.missingManifestLists = missingManifestLists;
    this.batchSize = batchSize;
    this.dedupeWindow = dedupeWindow;
  }

  /** The table metadata the plan was made from, not null. */
  public TableMetadata metadata() {
    return metadata;
  }

  /** Whether data and delete files are deleted: the table property {@code gc.enabled}, default true. */
  public boolean gcEnabled() {
    return gcEnabled;
  }

  /**
   * The phases to run, in delete order: every {@link PurgePhase}, without {@link
   * PurgePhase#DATA_AND_DELETE_FILES} when {@code gc.enabled=false}. A phase may have no batches.
   */
  public List<PurgePhase> phases() {
    List<PurgePhase> phases = new ArrayList<>(List.of(PurgePhase.values()));
    if (!gcEnabled) {
      // data files may be shared with another table (gc.enabled=false marks such tables)
      phases.remove(PurgePhase.DATA_AND_DELETE_FILES);
    }
    return List.copyOf(phases);
  }

  /** Number of distinct manifests (data and delete) referenced by the table's snapshots. */
  public int manifestCount() {
    return manifests.size();
  }

  /**
   * Manifest lists that did not exist when the plan was made and were taken as already deleted;
   * always empty unless the planner skips missing manifest lists. They are still deleted (as "not
   * found") in {@link PurgePhase#MANIFEST_LISTS}.
   */
  public List<String> missingManifestLists() {
    return missingManifestLists;
  }

  /**
   * Streams the paths of one phase in batches, logging unreadable manifests.
   *
   * @see #batches(PurgePhase, Consumer)
   */
  public CloseableIterator<List<String>> batches(PurgePhase phase) {
    return batches(
        phase,
        failure ->
            LOG.warn(
                "Failed to read manifest {}: its data and delete files are not deleted and may be orphaned: {}",
                failure.manifestPath(),
                failure.reason()));
  }

  /**
   * Streams the paths of one phase in batches of at most {@link PurgePlanner#batchSize()} paths.
   *
   * @param phase the phase, not null; {@link PurgePhase#DATA_AND_DELETE_FILES} yields nothing
   *     when {@code gc.enabled=false}
   * @param onUnreadableManifest called once per manifest that cannot be read while streaming
   *     {@link PurgePhase#DATA_AND_DELETE_FILES} (the stream continues with the next manifest);
   *     not null
   * @return a fresh iterator; close it to release an open manifest reader. Reading a manifest
   *     happens inside {@code hasNext()}.
   */
  public CloseableIterator<List<String>> batches(
      PurgePhase phase, Consumer<ManifestReadFailure> onUnreadableManifest) {
    Objects.requireNonNull(phase, "Cannot stream purge batches: phase is null");
    Objects.requireNonNull(onUnreadableManifest, "Cannot stream purge batches: failure callback is null");
    return switch (phase) {
      case DATA_AND_DELETE_FILES -> gcEnabled
          ? new ContentFileBatches(io, manifests, batchSize, dedupeWindow, onUnreadableManifest)
          : listBatches(List.of());
      case MANIFESTS -> listBatches(manifests.stream().map(ManifestFile::path).toList());
      case MANIFEST_LISTS -> listBatches(manifestLists);
      case STATISTICS_FILES -> listBatches(
          distinct(metadata.statisticsFiles().stream().map(StatisticsFile::path).toList()));
      case PARTITION_STATISTICS_FILES -> listBatches(
          distinct(
              metadata.partitionStatisticsFiles().stream()
                  .map(PartitionStatisticsFile::path)
                  .toList()));
      case PREVIOUS_METADATA_FILES -> listBatches(
          distinct(
              metadata.previousFiles().stream().map(TableMetadata.MetadataLogEntry::file).toList()));
      case CURRENT_METADATA_FILE -> listBatches(
          // metadata built in memory and never written has no file to delete
          metadata.metadataFileLocation() == null
              ? List.of()
              : List.of(metadata.metadataFileLocation()));
    };
  }

  private static List<String> distinct(List<String> paths) {
    return List.copyOf(new LinkedHashSet<>(paths));
  }

  private CloseableIterator<List<String>> listBatches(List<String> paths) {
    return new CloseableIterator<>() {
      private int from = 0;

      @Override
      public boolean hasNext() {
        return from < paths.size();
      }

      @Override
      public List<String> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int to = Math.min(from + batchSize, paths.size());
        List<String> batch = List.copyOf(paths.subList(from, to));
        from = to;
        return batch;
      }

      @Override
      public void close() {}
    };
  }

  /** For log lines and test failure messages; never includes FileIO properties. */
  @Override
  public String toString() {
    return "PurgePlan{metadata=" + metadata.metadataFileLocation() + ", gcEnabled=" + gcEnabled
        + ", manifests=" + manifests.size() + ", manifestLists=" + manifestLists.size() + "}";
  }
}
