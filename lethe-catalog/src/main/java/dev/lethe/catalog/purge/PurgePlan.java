package dev.lethe.catalog.purge;

import dev.lethe.catalog.io.ConfinedLocalFiles;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.LocationPath;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import dev.lethe.catalog.jobs.FileKind;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.PropertyUtil;
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
  private final PurgeScope scope;
  private final PurgePhase resumeAfter;
  private final List<ManifestFile> manifests;
  private final List<String> manifestLists;
  private final List<String> missingManifestLists;
  private final int batchSize;
  private final int dedupeWindow;
  /** Facts of data and delete files streamed and not yet asked for by {@link #facts}. */
  private final Map<String, FileFacts> contentFacts = new ConcurrentHashMap<>();
  /** Each manifest's length, by path. */
  private final Map<String, Long> manifestLengths = new java.util.HashMap<>();

  PurgePlan(
      FileIO io,
      TableMetadata metadata,
      boolean gcEnabled,
      PurgeScope scope,
      PurgePhase resumeAfter,
      List<ManifestFile> manifests,
      List<String> manifestLists,
      List<String> missingManifestLists,
      int batchSize,
      int dedupeWindow) {
    this.io = io;
    this.metadata = metadata;
    this.gcEnabled = gcEnabled;
    this.scope = scope;
    this.resumeAfter = resumeAfter;
    this.manifests = manifests;
    this.manifestLists = manifestLists;
    this.missingManifestLists = missingManifestLists;
    this.batchSize = batchSize;
    this.dedupeWindow = dedupeWindow;
    manifests.forEach(m -> manifestLengths.put(m.path(), m.length() >= 0 ? m.length() : null));
  }

  /** The table metadata the plan was made from, not null. */
  public TableMetadata metadata() {
    return metadata;
  }

  /** Whether data and delete files are deleted: the table property {@code gc.enabled}, default true. */
  public boolean gcEnabled() {
    return gcEnabled;
  }

  /** What the purge may delete: every batch is filtered through it. */
  public PurgeScope scope() {
    return scope;
  }

  /**
   * What the sweep of this purge walks: the scope, or with {@code gc.enabled=false} only the
   * table's metadata directory.
   */
  public PurgeScope sweepScope() {
    return sweepScope(metadata, scope);
  }

  /**
   * What the sweep of a purge walks: {@code scope}; with {@code gc.enabled=false} only the table's
   * metadata directory ({@code write.metadata.path}, else {@code <location>/metadata}), because its
   * data files may be shared with other tables (Iceberg's meaning of the property) and are kept.
   *
   * @throws dev.lethe.catalog.location.InvalidLocationException if the metadata directory does not
   *     parse
   */
  public static PurgeScope sweepScope(TableMetadata metadata, PurgeScope scope) {
    boolean gc = PropertyUtil.propertyAsBoolean(metadata.properties(), TableProperties.GC_ENABLED,
        TableProperties.GC_ENABLED_DEFAULT);
    if (gc) {
      return scope;
    }
    String dir = metadata.properties().get(TableProperties.WRITE_METADATA_LOCATION);
    LocationPath parsed = LocationPath.parse(dir != null ? dir : metadata.location().replaceAll("/+$", "") + "/metadata");
    return PurgeScope.of(List.of(parsed), scope.excluded());
  }

  /**
   * The phases to run, in delete order: every {@link PurgePhase} after the one the plan resumes
   * after, without {@link PurgePhase#DATA_AND_DELETE_FILES} when {@code gc.enabled=false}. A phase
   * may have no batches.
   */
  public List<PurgePhase> phases() {
    List<PurgePhase> phases = new ArrayList<>(List.of(PurgePhase.values()));
    if (resumeAfter != null) {
      phases.removeIf(p -> p.compareTo(resumeAfter) <= 0);
    }
    if (!gcEnabled) {
      // data files may be shared with another table (gc.enabled=false marks such tables)
      phases.remove(PurgePhase.DATA_AND_DELETE_FILES);
    }
    return List.copyOf(phases);
  }

  /**
   * What kind of file a path of a batch is and its size (docs/design/0445-job-progress-and-receipts.md).
   *
   * @param kind its kind
   * @param size bytes as Iceberg's metadata gives it (a data or delete file's {@code
   *     file_size_in_bytes}, a manifest's length, a statistics file's size), null when unknown
   *     (manifest lists and metadata files carry no size)
   */
  public record FileFacts(FileKind kind, Long size) {}

  /**
   * The facts of one path of a batch of {@code phase}; a data or delete file's are handed out once
   * (call it once per deleted path). Thread-safe.
   */
  public FileFacts facts(PurgePhase phase, String path) {
    return switch (phase) {
      case DATA_AND_DELETE_FILES -> {
        FileFacts f = contentFacts.remove(path);
        yield f != null ? f : new FileFacts(FileKind.DATA_FILES, null);
      }
      case MANIFESTS -> new FileFacts(FileKind.MANIFESTS, manifestLengths.get(path));
      case MANIFEST_LISTS -> new FileFacts(FileKind.MANIFEST_LISTS, null);
      case STATISTICS_FILES -> new FileFacts(FileKind.STATISTICS_FILES, metadata.statisticsFiles().stream()
          .filter(f -> f.path().equals(path)).findFirst().map(StatisticsFile::fileSizeInBytes).orElse(null));
      case PARTITION_STATISTICS_FILES -> new FileFacts(FileKind.STATISTICS_FILES, metadata.partitionStatisticsFiles()
          .stream().filter(f -> f.path().equals(path)).findFirst().map(PartitionStatisticsFile::fileSizeInBytes)
          .orElse(null));
      case PREVIOUS_METADATA_FILES, CURRENT_METADATA_FILE -> new FileFacts(FileKind.METADATA_FILES, null);
    };
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
   * Streams the paths of one phase in batches, logging unreadable manifests and kept files.
   *
   * @see #batches(PurgePhase, Consumer, Consumer)
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
   * Streams the paths of one phase in batches, logging kept files.
   *
   * @see #batches(PurgePhase, Consumer, Consumer)
   */
  public CloseableIterator<List<String>> batches(
      PurgePhase phase, Consumer<ManifestReadFailure> onUnreadableManifest) {
    return batches(phase, onUnreadableManifest,
        keep -> LOG.info("Keeping {} file {}: {}", phase, keep.path(), keep.reason()));
  }

  /**
   * Streams the paths of one phase in batches of at most {@link PurgePlanner#batchSize()} paths.
   *
   * @param phase the phase, not null; {@link PurgePhase#DATA_AND_DELETE_FILES} yields nothing
   *     when {@code gc.enabled=false}
   * @param onUnreadableManifest called once per manifest that cannot be read while streaming
   *     {@link PurgePhase#DATA_AND_DELETE_FILES} (the stream continues with the next manifest);
   *     not null
   * @param onKept called once per path the {@link #scope()} keeps (rule 1: outside the table's
   *     roots, unparsable, or inside another entry's claim); such a path is in no batch; not null
   * @return a fresh iterator; close it to release an open manifest reader. Reading a manifest
   *     happens inside {@code hasNext()}. Every path in a batch is one the scope lets the purge
   *     delete.
   */
  public CloseableIterator<List<String>> batches(
      PurgePhase phase, Consumer<ManifestReadFailure> onUnreadableManifest, Consumer<PurgeScope.Keep> onKept) {
    CloseableIterator<List<PlannedFile>> files = files(phase, onUnreadableManifest, onKept);
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return files.hasNext();
      }

      @Override
      public List<String> next() {
        List<PlannedFile> batch = files.next();
        if (phase == PurgePhase.DATA_AND_DELETE_FILES) {
          // the job's progress asks for each deleted path's facts (docs/design/0445-job-progress-and-receipts.md)
          batch.forEach(f -> contentFacts.put(f.path(), new FileFacts(
              f.deleteFile() ? FileKind.DELETE_FILES : FileKind.DATA_FILES,
              f.sizeInBytes() == PlannedFile.UNKNOWN_SIZE ? null : f.sizeInBytes())));
        }
        return batch.stream().map(PlannedFile::path).toList();
      }

      @Override
      public void close() throws java.io.IOException {
        files.close();
      }
    };
  }

  /**
   * A file a phase deletes, with the size the metadata gives for it.
   *
   * @param path the location as the metadata names it, not null
   * @param sizeInBytes the size Iceberg records (a data or delete file's {@code file_size_in_bytes},
   *     a manifest's {@code length}, a statistics file's {@code file_size_in_bytes}), or {@link
   *     #UNKNOWN_SIZE} for files the metadata does not size (manifest lists, metadata files)
   * @param deleteFile true for a delete file (an entry of a delete manifest), false otherwise
   */
  public record PlannedFile(String path, long sizeInBytes, boolean deleteFile) {
    PlannedFile(String path, long sizeInBytes) {
      this(path, sizeInBytes, false);
    }

    /** The metadata gives no size for the file. */
    public static final long UNKNOWN_SIZE = -1;
  }

  /**
   * The very stream {@link #batches(PurgePhase, Consumer, Consumer)} is made of (same phases, same
   * order, same confinement and kept-file callback), with each file's size from the metadata: the
   * purge preview counts it, the purge deletes its paths (docs/design/0442-purge-preview.md).
   *
   * @see #batches(PurgePhase, Consumer, Consumer)
   */
  public CloseableIterator<List<PlannedFile>> files(
      PurgePhase phase, Consumer<ManifestReadFailure> onUnreadableManifest, Consumer<PurgeScope.Keep> onKept) {
    Objects.requireNonNull(phase, "Cannot stream purge batches: phase is null");
    Objects.requireNonNull(onUnreadableManifest, "Cannot stream purge batches: failure callback is null");
    Objects.requireNonNull(onKept, "Cannot stream purge batches: kept callback is null");
    return new ConfinedBatches(unconfined(phase, onUnreadableManifest), scope, ConfinedLocalFiles.of(io), onKept);
  }

  private CloseableIterator<List<PlannedFile>> unconfined(
      PurgePhase phase, Consumer<ManifestReadFailure> onUnreadableManifest) {
    return switch (phase) {
      case DATA_AND_DELETE_FILES -> gcEnabled
          ? new ContentFileBatches(io, manifests, batchSize, dedupeWindow, onUnreadableManifest)
          : listBatches(List.of());
      case MANIFESTS -> listBatches(manifests.stream().map(m -> new PlannedFile(m.path(), m.length())).toList());
      case MANIFEST_LISTS -> listBatches(unsized(manifestLists));
      case STATISTICS_FILES -> listBatches(distinct(
          metadata.statisticsFiles().stream().map(f -> new PlannedFile(f.path(), f.fileSizeInBytes())).toList()));
      case PARTITION_STATISTICS_FILES -> listBatches(distinct(
          metadata.partitionStatisticsFiles().stream()
              .map(f -> new PlannedFile(f.path(), f.fileSizeInBytes()))
              .toList()));
      case PREVIOUS_METADATA_FILES -> listBatches(distinct(
          unsized(metadata.previousFiles().stream().map(TableMetadata.MetadataLogEntry::file).toList())));
      case CURRENT_METADATA_FILE -> listBatches(
          // metadata built in memory and never written has no file to delete
          metadata.metadataFileLocation() == null
              ? List.of()
              : unsized(List.of(metadata.metadataFileLocation())));
    };
  }

  private static List<PlannedFile> unsized(List<String> paths) {
    return paths.stream().map(p -> new PlannedFile(p, PlannedFile.UNKNOWN_SIZE)).toList();
  }

  /** The first file of every path, in order. */
  private static List<PlannedFile> distinct(List<PlannedFile> files) {
    java.util.Map<String, PlannedFile> byPath = new java.util.LinkedHashMap<>();
    files.forEach(f -> byPath.putIfAbsent(f.path(), f));
    return List.copyOf(byPath.values());
  }

  private CloseableIterator<List<PlannedFile>> listBatches(List<PlannedFile> paths) {
    return new CloseableIterator<>() {
      private int from = 0;

      @Override
      public boolean hasNext() {
        return from < paths.size();
      }

      @Override
      public List<PlannedFile> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int to = Math.min(from + batchSize, paths.size());
        List<PlannedFile> batch = List.copyOf(paths.subList(from, to));
        from = to;
        return batch;
      }

      @Override
      public void close() {}
    };
  }

  /** Filters every batch through the scope; a batch left empty is skipped. */
  private static final class ConfinedBatches implements CloseableIterator<List<PlannedFile>> {
    private final CloseableIterator<List<PlannedFile>> source;
    private final PurgeScope scope;
    private final ConfinedLocalFiles files;
    private final Consumer<PurgeScope.Keep> onKept;
    private List<PlannedFile> next;

    ConfinedBatches(CloseableIterator<List<PlannedFile>> source, PurgeScope scope, ConfinedLocalFiles files,
        Consumer<PurgeScope.Keep> onKept) {
      this.source = source;
      this.scope = scope;
      this.files = files;
      this.onKept = onKept;
    }

    @Override
    public boolean hasNext() {
      while (next == null && source.hasNext()) {
        List<PlannedFile> batch = source.next();
        List<PlannedFile> deletable = new ArrayList<>(batch.size());
        for (PlannedFile file : batch) {
          PurgeScope.Decision decision = throughLink(scope.decide(file.path()));
          if (decision instanceof PurgeScope.Delete d) {
            deletable.add(new PlannedFile(d.path(), file.sizeInBytes(), file.deleteFile()));
          } else {
            onKept.accept((PurgeScope.Keep) decision);
          }
        }
        if (!deletable.isEmpty()) {
          next = List.copyOf(deletable);
        }
      }
      return next != null;
    }

    /**
     * A local path the scope lets go is kept when a symbolic link lies on its way: its real file is
     * not the one the scope reasoned about (docs/design/0007-no-symbolic-link-below-the-warehouse.md).
     * The delete itself follows no link either, whatever changed since.
     */
    private PurgeScope.Decision throughLink(PurgeScope.Decision decision) {
      if (decision instanceof PurgeScope.Delete d) {
        LocationPath parsed = LocationPath.parse(d.path());
        if (parsed.isFile()) {
          Optional<java.nio.file.Path> link = files.linkOnTheWay(parsed);
          if (link.isPresent()) {
            return new PurgeScope.Keep(d.path(), PurgeScope.Why.SYMBOLIC_LINK, "reached through the symbolic link " + link.get());
          }
        }
      }
      return decision;
    }

    @Override
    public List<PlannedFile> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      List<PlannedFile> batch = next;
      next = null;
      return batch;
    }

    @Override
    public void close() throws java.io.IOException {
      source.close();
    }
  }

  /** For log lines and test failure messages; never includes FileIO properties. */
  @Override
  public String toString() {
    return "PurgePlan{metadata=" + metadata.metadataFileLocation() + ", gcEnabled=" + gcEnabled
        + ", manifests=" + manifests.size() + ", manifestLists=" + manifestLists.size() + "}";
  }
}
