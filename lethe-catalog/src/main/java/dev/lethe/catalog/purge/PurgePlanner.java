package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.TableRoots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Decides which files a purge of a table deletes and in which order (the asynchronous purge
 * streams the same plan). Every path is confined by a {@link PurgeScope}: what lies outside the
 * table's roots is kept (docs/design/0003-purge-sweep-and-kept-files.md).
 *
 * <p>Before confinement, the set is exactly the one Iceberg 1.12's {@code CatalogUtil.dropTableData} deletes:
 *
 * <ul>
 *   <li>the data and delete files of every entry of every manifest of every snapshot, including
 *       entries with status DELETED, only when {@code gc.enabled} is true (its default);
 *   <li>every manifest and every manifest list of every snapshot;
 *   <li>the statistics and partition-statistics files registered in the metadata;
 *   <li>the previous metadata files of the metadata log and the current metadata file.
 * </ul>
 *
 * <p>{@link #plan} reads every manifest list eagerly (one {@link ManifestFile} per distinct
 * manifest is kept, as Iceberg does) so a failure to read one aborts the purge before anything is
 * deleted. Data and delete file paths are never held all at once: the {@link
 * PurgePhase#DATA_AND_DELETE_FILES} phase reads one manifest at a time while its batches are
 * consumed.
 *
 * <p>Immutable and thread-safe; one planner serves every purge.
 */
public final class PurgePlanner {
  /** Default number of paths per batch: one S3 {@code DeleteObjects} request holds 1000 keys. */
  public static final int DEFAULT_BATCH_SIZE = 1000;

  /**
   * Default number of recently streamed data/delete file paths remembered to drop duplicates (a
   * file appears in several manifests after manifest rewrites or deletes).
   */
  public static final int DEFAULT_DEDUPE_WINDOW = 100_000;

  private final int batchSize;
  private final int dedupeWindow;
  private final boolean skipMissingManifestLists;

  /** A planner with {@link #DEFAULT_BATCH_SIZE}, Iceberg's behaviour on missing manifest lists. */
  public PurgePlanner() {
    this(DEFAULT_BATCH_SIZE);
  }

  /**
   * A planner with the given batch size and Iceberg's behaviour on missing manifest lists.
   *
   * @param batchSize maximum paths per batch, at least 1
   * @throws IllegalArgumentException if {@code batchSize < 1}
   */
  public PurgePlanner(int batchSize) {
    this(batchSize, DEFAULT_DEDUPE_WINDOW, false);
  }

  /**
   * A planner.
   *
   * @param batchSize maximum paths per batch, at least 1
   * @param dedupeWindow how many recently streamed data/delete file paths are remembered to skip
   *     duplicates, at least 0 (0 = no de-duplication; a duplicate is then deleted twice, the
   *     second time as "not found")
   * @param skipMissingManifestLists false = Iceberg's behaviour: a manifest list that cannot be
   *     read fails {@link #plan} with the exception. true = a manifest list that does not exist
   *     ({@link NotFoundException}) is taken as already deleted and recorded in {@link
   *     PurgePlan#missingManifestLists()}; meant for retrying a purge that was interrupted after
   *     deleting manifest lists. Other read failures still fail {@link #plan}.
   * @throws IllegalArgumentException if {@code batchSize < 1} or {@code dedupeWindow < 0}
   */
  public PurgePlanner(int batchSize, int dedupeWindow, boolean skipMissingManifestLists) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("Cannot create purge planner: batch size must be >= 1, got " + batchSize);
    }
    if (dedupeWindow < 0) {
      throw new IllegalArgumentException(
          "Cannot create purge planner: dedupe window must be >= 0, got " + dedupeWindow);
    }
    this.batchSize = batchSize;
    this.dedupeWindow = dedupeWindow;
    this.skipMissingManifestLists = skipMissingManifestLists;
  }

  /** Maximum number of paths per batch. */
  public int batchSize() {
    return batchSize;
  }

  /**
   * Plans the purge of one table.
   *
   * @param io the table's FileIO, used to read manifest lists now and manifests while the data
   *     phase streams; not null
   * @param metadata the table's last metadata, not null
   * @return the plan; reading manifests happens lazily in {@link PurgePlan#batches}
   * @throws NotFoundException if a manifest list does not exist (unless the planner skips missing
   *     manifest lists)
   * @throws RuntimeException any other failure to read a manifest list (for example {@code
   *     org.apache.iceberg.exceptions.RuntimeIOException}); nothing has been deleted then
   * @throws dev.lethe.catalog.location.InvalidLocationException if the table's location or a write
   *     path does not parse: no file can be confined to it, so nothing is deleted
   */
  public PurgePlan plan(FileIO io, TableMetadata metadata) {
    Objects.requireNonNull(metadata, "Cannot plan purge: table metadata is null");
    return plan(io, metadata, PurgeScope.of(TableRoots.of(metadata)), null);
  }

  /**
   * Plans the purge of one table within a scope, resuming after a phase an earlier attempt
   * finished (docs/design/0003-purge-sweep-and-kept-files.md §3).
   *
   * @param io the table's FileIO, not null
   * @param metadata the table's last metadata, not null
   * @param scope what the purge may delete (rule 1); every batch is filtered through it, not null
   * @param resumeAfter the last phase an earlier attempt finished, or null to start from the first.
   *     From {@link PurgePhase#DATA_AND_DELETE_FILES} on, manifests are not read (their data files
   *     are gone); from {@link PurgePhase#MANIFESTS} on, manifest lists are not read either (the
   *     manifests they list are gone), so files an earlier attempt deleted are not needed.
   * @return the plan
   * @throws NotFoundException if a manifest list that is needed does not exist (unless the planner
   *     skips missing manifest lists)
   * @throws RuntimeException any other failure to read a needed manifest list
   */
  public PurgePlan plan(FileIO io, TableMetadata metadata, PurgeScope scope, PurgePhase resumeAfter) {
    Objects.requireNonNull(io, "Cannot plan purge: FileIO is null");
    Objects.requireNonNull(metadata, "Cannot plan purge: table metadata is null");
    Objects.requireNonNull(scope, "Cannot plan purge: scope is null");
    boolean readLists = resumeAfter == null || resumeAfter.compareTo(PurgePhase.MANIFESTS) < 0;

    // Iceberg keeps a Set<ManifestFile> whose equality is the manifest path
    Map<String, ManifestFile> manifests = new LinkedHashMap<>();
    Set<String> manifestLists = new LinkedHashSet<>();
    List<String> missingManifestLists = new ArrayList<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      List<ManifestFile> snapshotManifests;
      try {
        snapshotManifests = readLists ? snapshot.allManifests(io) : List.of();
      } catch (NotFoundException e) {
        if (!skipMissingManifestLists || snapshot.manifestListLocation() == null) {
          throw e;
        }
        missingManifestLists.add(snapshot.manifestListLocation());
        snapshotManifests = List.of();
      }
      for (ManifestFile manifest : snapshotManifests) {
        manifests.putIfAbsent(manifest.path(), manifest);
      }
      if (snapshot.manifestListLocation() != null) {
        manifestLists.add(snapshot.manifestListLocation());
      }
    }

    boolean gcEnabled =
        PropertyUtil.propertyAsBoolean(
            metadata.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT);
    return new PurgePlan(
        io,
        metadata,
        gcEnabled,
        scope,
        resumeAfter,
        List.copyOf(manifests.values()),
        List.copyOf(manifestLists),
        List.copyOf(missingManifestLists),
        batchSize,
        dedupeWindow);
  }
}
