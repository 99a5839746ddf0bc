package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.io.LocalFileIO;
import dev.lethe.catalog.jobs.PurgePhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanDeleterTest {
  @TempDir Path warehouse;
  private JdbcCatalog catalog;
  private final LocalFileIO io = new LocalFileIO();

  @BeforeEach
  void setUp() {
    catalog = ParquetTables.catalog(warehouse.toString(), LocalFileIO.class.getName(), Map.of());
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
  }

  @Test
  void purgeDeletesExactlyTheFilesIcebergDropTableDataDeletes() {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    assertFixtureIsRich(table, metadata);

    RecordingFileIO iceberg = new RecordingFileIO(io, false);
    CatalogUtil.dropTableData(iceberg, metadata);

    RecordingFileIO ours = new RecordingFileIO(io, true);
    PurgeResult result = new PlanDeleter().purge(ours, metadata);

    assertThat(new HashSet<>(ours.deleted())).isEqualTo(new HashSet<>(iceberg.deleted()));
    assertThat(ours.deleted()).doesNotHaveDuplicates();
    assertThat(result.complete()).isTrue();
    assertThat(result.totalDeleted()).isEqualTo(ours.deleted().size());
    Map<PurgePhase, Set<String>> expected = expectedPhases(metadata, ours.deleted());
    for (PurgePhase phase : PurgePhase.values()) {
      assertThat(result.deleted(phase)).as("deleted %s", phase).isEqualTo(expected.get(phase).size());
    }
  }

  @Test
  void purgeDeletesLeafFilesFirstAndTheCurrentMetadataFileLast() {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    RecordingFileIO recorder = new RecordingFileIO(io, true);

    new PlanDeleter(new PurgePlanner(2)).purge(recorder, metadata);

    assertPhasesInOrderWithTheCurrentMetadataFileLast(metadata, recorder.deleted());
  }

  @Test
  void withADeletePoolBatchesRunOnThePoolThreadsAndEachPhaseFinishesBeforeTheNext() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    RecordingFileIO iceberg = new RecordingFileIO(io, false);
    CatalogUtil.dropTableData(iceberg, metadata);
    RecordingFileIO recorder = new RecordingFileIO(io, true);

    PurgeResult result;
    try (DeletePool pool = new DeletePool(2, 1)) {
      result = new PlanDeleter(new PurgePlanner(1), pool).purge(recorder, metadata);
    }

    assertThat(result.complete()).isTrue();
    assertThat(result.totalDeleted()).isEqualTo(iceberg.deleted().size());
    assertThat(new HashSet<>(recorder.deleted())).isEqualTo(new HashSet<>(iceberg.deleted()));
    assertThat(recorder.deleted()).doesNotHaveDuplicates();
    assertPhasesInOrderWithTheCurrentMetadataFileLast(metadata, recorder.deleted());
    assertThat(recorder.deletingThreads()).anyMatch(name -> name.startsWith("lethe-purge-delete-"));
    assertThat(regularFiles(Path.of(table.location()))).isEmpty();
  }

  private void assertPhasesInOrderWithTheCurrentMetadataFileLast(TableMetadata metadata, List<String> order) {
    Map<PurgePhase, Set<String>> phases = expectedPhases(metadata, order);
    List<PurgePhase> phaseOfEachDelete = new ArrayList<>();
    for (String path : order) {
      phaseOfEachDelete.add(
          phases.entrySet().stream().filter(e -> e.getValue().contains(path)).findFirst().orElseThrow().getKey());
    }
    assertThat(phaseOfEachDelete).isSorted();
    assertThat(phaseOfEachDelete).containsAll(List.of(PurgePhase.values()));
    assertThat(order.get(order.size() - 1)).isEqualTo(metadata.metadataFileLocation());
  }

  @Test
  void purgeLeavesNoFileUnderTheTableLocationAndKeepsEveryFileOfTheSiblingTable() throws IOException {
    Table t = ParquetTables.createRichTable(catalog, "t", Map.of());
    Table t2 = ParquetTables.createRichTable(catalog, "t2", Map.of());
    assertThat(t2.location()).isEqualTo(t.location() + "2");
    assertThat(ParquetTables.rows(t)).hasSize(14); // 18 rows, 3 in the deleted file, 1 position-deleted
    Set<Path> siblingBefore = regularFiles(Path.of(t2.location()));
    assertThat(regularFiles(Path.of(t.location()))).hasSizeGreaterThan(15);

    PurgeResult result = new PlanDeleter().purge(io, ParquetTables.metadata(t));

    assertThat(result.complete()).isTrue();
    assertThat(regularFiles(Path.of(t.location()))).isEmpty();
    assertThat(regularFiles(Path.of(t2.location()))).isEqualTo(siblingBefore);
    assertThat(ParquetTables.rows(t2)).hasSize(14);
  }

  @Test
  void gcDisabledKeepsDataAndDeleteFilesAndDeletesWhatIcebergDeletes() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of(TableProperties.GC_ENABLED, "false"));
    TableMetadata metadata = ParquetTables.metadata(table);
    Set<Path> dataBefore = regularFiles(Path.of(table.location(), "data"));
    assertThat(dataBefore).hasSize(7); // 6 data files + 1 position delete file

    RecordingFileIO iceberg = new RecordingFileIO(io, false);
    CatalogUtil.dropTableData(iceberg, metadata);
    RecordingFileIO ours = new RecordingFileIO(io, true);
    PurgeResult result = new PlanDeleter().purge(ours, metadata);

    assertThat(result.gcEnabled()).isFalse();
    assertThat(result.deleted(PurgePhase.DATA_AND_DELETE_FILES)).isZero();
    assertThat(new HashSet<>(ours.deleted())).isEqualTo(new HashSet<>(iceberg.deleted()));
    assertThat(regularFiles(Path.of(table.location(), "data"))).isEqualTo(dataBefore);
    assertThat(regularFiles(Path.of(table.location(), "metadata"))).isEmpty();
  }

  @Test
  void fileOnlyReachableThroughADeletedManifestEntryIsDeletedAsIcebergDoes() {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String removed = ParquetTables.append(table, 1000).get(0).location();
    table.newDelete().deleteFile(removed).commit();
    // keep only the last snapshot and keep the expired files: the removed file is now named only
    // by the DELETED entry of the last snapshot's manifest
    table.expireSnapshots().retainLast(1).expireOlderThan(Long.MAX_VALUE).cleanExpiredFiles(false).commit();
    TableMetadata metadata = ParquetTables.metadata(table);
    assertThat(metadata.snapshots()).hasSize(1);
    assertThat(Files.exists(Path.of(removed))).isTrue();

    RecordingFileIO iceberg = new RecordingFileIO(io, false);
    CatalogUtil.dropTableData(iceberg, metadata);
    RecordingFileIO ours = new RecordingFileIO(io, true);
    new PlanDeleter().purge(ours, metadata);

    assertThat(iceberg.deleted()).contains(removed);
    assertThat(new HashSet<>(ours.deleted())).isEqualTo(new HashSet<>(iceberg.deleted()));
    assertThat(Files.exists(Path.of(removed))).isFalse();
  }

  @Test
  void batchesNeverExceedTheBatchSizeAndCoverTheWholeSet() {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    RecordingFileIO iceberg = new RecordingFileIO(io, false);
    CatalogUtil.dropTableData(iceberg, metadata);

    PurgePlan plan = new PurgePlanner(3).plan(io, metadata);
    List<String> streamed = new ArrayList<>();
    for (PurgePhase phase : plan.phases()) {
      try (CloseableIterator<List<String>> batches = plan.batches(phase)) {
        while (batches.hasNext()) {
          List<String> batch = batches.next();
          assertThat(batch).hasSizeBetween(1, 3);
          streamed.addAll(batch);
        }
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }
    assertThat(streamed).doesNotHaveDuplicates();
    assertThat(new HashSet<>(streamed)).isEqualTo(new HashSet<>(iceberg.deleted()));

    RecordingFileIO recorder = new RecordingFileIO(io, true);
    new PlanDeleter(new PurgePlanner(3)).purge(recorder, metadata);
    assertThat(recorder.bulkCallSizes()).allSatisfy(size -> assertThat(size).isBetween(1, 3));
  }

  @Test
  void dataAndDeleteFilesAreStreamedOneManifestAtATime() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    RecordingFileIO reads = new RecordingFileIO(io, false);
    PurgePlan plan = new PurgePlanner(1).plan(reads, metadata);
    assertThat(plan.manifestCount()).isGreaterThanOrEqualTo(4);
    int readsWhilePlanning = reads.opened().size();

    try (CloseableIterator<List<String>> batches = plan.batches(PurgePhase.DATA_AND_DELETE_FILES)) {
      assertThat(batches.next()).hasSize(1);
      // the first batch needed the first manifest only
      assertThat(reads.opened().subList(readsWhilePlanning, reads.opened().size())).hasSize(1);
      int batchCount = 1;
      while (batches.hasNext()) {
        batches.next();
        batchCount++;
      }
      assertThat(batchCount).isEqualTo(7); // 6 data files + 1 position delete file, deduplicated
      assertThat(reads.opened().size() - readsWhilePlanning).isEqualTo(plan.manifestCount());
    }
    assertThat(reads.deleted()).isEmpty();
  }

  @Test
  void fileIOWithoutBulkSupportDeletesOneByOneWithTheSameCounts() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    RecordingFileIO recorder = new RecordingFileIO(io, true);

    PurgeResult result = new PlanDeleter().purge(RecordingFileIO.withoutBulk(recorder), metadata);

    assertThat(recorder.bulkCallSizes()).isEmpty();
    assertThat(result.totalDeleted()).isEqualTo(recorder.deleted().size());
    assertThat(result.complete()).isTrue();
    assertThat(regularFiles(Path.of(table.location()))).isEmpty();
  }

  @Test
  void filesAlreadyGoneCountAsDeleted() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    Set<Path> data = regularFiles(Path.of(table.location(), "data"));
    for (Path p : data) {
      Files.delete(p);
    }

    PurgeResult result = new PlanDeleter().purge(io, metadata);

    assertThat(result.complete()).isTrue();
    assertThat(result.deleted(PurgePhase.DATA_AND_DELETE_FILES)).isEqualTo(data.size());
    assertThat(regularFiles(Path.of(table.location()))).isEmpty();
  }

  @Test
  void unreadableManifestIsReportedAndEverythingElseIsPurged() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    ManifestFile deleteManifest = metadata.currentSnapshot().deleteManifests(io).get(0);
    Set<Path> deleteFiles = new HashSet<>();
    try (org.apache.iceberg.ManifestReader<org.apache.iceberg.DeleteFile> reader =
        org.apache.iceberg.ManifestFiles.readDeleteManifest(deleteManifest, io, metadata.specsById())) {
      reader.forEach(f -> deleteFiles.add(Path.of(f.location())));
    }
    Files.writeString(
        Path.of(deleteManifest.path()), "not an avro file", java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);

    PurgeResult result = new PlanDeleter().purge(io, metadata);

    assertThat(result.complete()).isFalse();
    assertThat(result.unreadableManifests()).extracting(ManifestReadFailure::manifestPath)
        .containsExactly(deleteManifest.path());
    assertThat(result.unreadableManifests().get(0).notFound()).isFalse();
    assertThat(result.failed(PurgePhase.DATA_AND_DELETE_FILES)).isZero();
    // only the position delete file named by the unreadable manifest is left behind
    assertThat(regularFiles(Path.of(table.location()))).isEqualTo(deleteFiles).hasSize(1);
  }

  @Test
  void missingManifestListFailsThePurgeBeforeAnythingIsDeleted() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    String manifestList = metadata.snapshots().get(0).manifestListLocation();
    Files.delete(Path.of(manifestList));
    Set<Path> before = regularFiles(Path.of(table.location()));

    assertThatThrownBy(() -> new PlanDeleter().purge(io, metadata)).isInstanceOf(NotFoundException.class);
    assertThat(regularFiles(Path.of(table.location()))).isEqualTo(before);

    PurgeResult retry =
        new PlanDeleter(new PurgePlanner(PurgePlanner.DEFAULT_BATCH_SIZE, 10, true)).purge(io, metadata);
    assertThat(retry.missingManifestLists()).containsExactly(manifestList);
    assertThat(retry.complete()).isTrue();
    assertThat(regularFiles(Path.of(table.location()))).isEmpty();
  }

  @Test
  void plannerRejectsNonPositiveBatchSizeAndNegativeDedupeWindow() {
    assertThatThrownBy(() -> new PurgePlanner(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batch size must be >= 1, got 0");
    assertThatThrownBy(() -> new PurgePlanner(10, -1, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dedupe window must be >= 0, got -1");
  }

  private void assertFixtureIsRich(Table table, TableMetadata metadata) {
    assertThat(metadata.snapshots()).hasSizeGreaterThanOrEqualTo(5);
    assertThat(metadata.currentSnapshot().deleteManifests(io)).isNotEmpty();
    assertThat(metadata.statisticsFiles()).hasSize(1);
    assertThat(metadata.partitionStatisticsFiles()).hasSize(1);
    assertThat(metadata.previousFiles()).isNotEmpty();
    assertThat(table.spec().isPartitioned()).isTrue();
  }

  /**
   * Classifies deleted paths by phase from the table metadata (manifest lists, manifests,
   * statistics, metadata log); anything else deleted must be a data or delete file under data/.
   */
  private Map<PurgePhase, Set<String>> expectedPhases(TableMetadata metadata, List<String> deleted) {
    Map<PurgePhase, Set<String>> phases = new LinkedHashMap<>();
    for (PurgePhase phase : PurgePhase.values()) {
      phases.put(phase, new HashSet<>());
    }
    for (Snapshot s : metadata.snapshots()) {
      phases.get(PurgePhase.MANIFEST_LISTS).add(s.manifestListLocation());
      s.allManifests(io).forEach(m -> phases.get(PurgePhase.MANIFESTS).add(m.path()));
    }
    metadata.statisticsFiles().stream().map(StatisticsFile::path).forEach(phases.get(PurgePhase.STATISTICS_FILES)::add);
    metadata.partitionStatisticsFiles().stream().map(PartitionStatisticsFile::path)
        .forEach(phases.get(PurgePhase.PARTITION_STATISTICS_FILES)::add);
    metadata.previousFiles().forEach(e -> phases.get(PurgePhase.PREVIOUS_METADATA_FILES).add(e.file()));
    phases.get(PurgePhase.CURRENT_METADATA_FILE).add(metadata.metadataFileLocation());
    Set<String> known = new HashSet<>();
    phases.values().forEach(known::addAll);
    for (String path : deleted) {
      if (!known.contains(path)) {
        assertThat(path).startsWith(metadata.location() + "/data/");
        phases.get(PurgePhase.DATA_AND_DELETE_FILES).add(path);
      }
    }
    return phases;
  }

  private static Set<Path> regularFiles(Path root) throws IOException {
    if (!Files.exists(root)) {
      return Set.of();
    }
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(java.util.stream.Collectors.toSet());
    }
  }
}
