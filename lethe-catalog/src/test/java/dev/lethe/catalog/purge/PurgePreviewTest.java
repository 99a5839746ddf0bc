package dev.lethe.catalog.purge;

import static dev.lethe.catalog.purge.PurgeFixture.id;
import static dev.lethe.catalog.purge.PurgeFixture.path;
import static dev.lethe.catalog.purge.PurgeFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.softdelete.PurgePreviews;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The purge preview against the purge itself (docs/design/0442-purge-preview.md): on tables Iceberg's
 * own writers wrote, the files the preview says a purge would delete are exactly the files the purge
 * job then deletes, and the files it says would be kept are exactly the table's files left.
 */
class PurgePreviewTest {
  /** Large enough that the samples hold every path of these small tables. */
  private static final int ALL = 100_000;

  @TempDir Path tmp;
  private PurgeFixture f;

  @AfterEach
  void close() throws Exception {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void thePreviewOfARichTableIsWhatThePurgeDeletes() throws Exception {
    f = new PurgeFixture("h2", tmp);
    Table table = ParquetTables.createRichTable(f.catalog, "rich", Map.of());
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path borrowed = borrow(table, outside.resolve("borrowed.parquet"));

    PurgePreviews.Previewed p = preview("rich");
    assertThat(p.state()).isEqualTo("LIVE");
    assertThat(p.wouldFail()).isNull();
    PurgePreview.Report r = p.report();
    assertThat(r.roots()).containsExactly(path(table.location()).toString());
    // every kind Iceberg wrote is there: 3 appends of 2 files + 1 borrowed + 1 position delete
    assertThat(r.wouldDelete().get(PurgePhase.DATA_AND_DELETE_FILES).files()).isEqualTo(7);
    assertThat(r.wouldDelete().get(PurgePhase.STATISTICS_FILES).files()).isEqualTo(1);
    assertThat(r.wouldDelete().get(PurgePhase.PARTITION_STATISTICS_FILES).files()).isEqualTo(1);
    assertThat(r.wouldDelete().get(PurgePhase.MANIFEST_LISTS).files()).isEqualTo(table.history().size());
    assertThat(r.wouldDelete().get(PurgePhase.CURRENT_METADATA_FILE).files()).isEqualTo(1);
    assertThat(r.wouldKeep()).containsOnlyKeys(PurgePreview.KeepReason.OUTSIDE_ROOTS);
    assertThat(r.wouldKeep().get(PurgePreview.KeepReason.OUTSIDE_ROOTS).sample()).singleElement()
        .satisfies(s -> assertThat(s).startsWith(borrowed.toString()));

    Set<Path> before = snapshot(tmp).keySet();
    CleanupJob job = f.purgeAsync("rich");
    assertThat(job.state()).as(job.lastError()).isEqualTo(CleanupJobState.SUCCEEDED);
    Set<Path> deleted = new TreeSet<>(before);
    deleted.removeAll(snapshot(tmp).keySet());

    assertThat(wouldDelete(r)).isEqualTo(deleted);
    assertThat(r.sweep().sample()).allSatisfy(s -> assertThat(path(s).getFileName().toString())
        .startsWith(".").endsWith(".crc"));
    assertThat(keptPaths(r)).containsExactly(borrowed).allSatisfy(k -> assertThat(k).exists());
  }

  /**
   * Random histories (seeded; {@code -Dlethe.test.preview.seed=N} replays): appends, overwrites,
   * deletes, snapshot expiry, a data file of another live table and a file outside every table
   * appended to the history. Oracle: would-delete == deleted, would-keep == the table's files left.
   */
  @Test
  void onRandomHistoriesThePreviewIsWhatThePurgeDeletesFileForFile() throws Exception {
    long seed = Long.getLong("lethe.test.preview.seed", System.nanoTime());
    int tables = Integer.getInteger("lethe.test.preview.tables", 6);
    System.out.println("PurgePreviewTest seed=" + seed + " (replay with -Dlethe.test.preview.seed=" + seed + ")");
    Random random = new Random(seed);
    f = new PurgeFixture("h2", tmp);
    Table other = f.catalog.createTable(id("other"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    List<DataFile> othersFiles = ParquetTables.append(other, 0);

    for (int i = 0; i < tables; i++) {
      String name = "t" + i;
      String context = "seed=" + seed + " table=" + name;
      Table table = f.catalog.createTable(id(name), ParquetTables.SCHEMA, ParquetTables.SPEC);
      List<DataFile> live = new ArrayList<>(ParquetTables.append(table, 0));
      Set<Path> expectKept = new HashSet<>();
      for (int step = 0, n = 2 + random.nextInt(5); step < n; step++) {
        long firstId = (step + 1) * 100L;
        switch (random.nextInt(6)) {
          case 0, 1 -> live.addAll(ParquetTables.append(table, firstId));
          case 2 -> { // overwrite one file by two new ones
            DataFile gone = live.remove(random.nextInt(live.size()));
            List<DataFile> added = ParquetTables.writeDataFiles(table, firstId);
            var overwrite = table.newOverwrite().deleteFile(gone);
            added.forEach(overwrite::addFile);
            overwrite.commit();
            live.addAll(added);
          }
          case 3 -> {
            if (live.size() > 1) {
              table.newDelete().deleteFile(live.remove(random.nextInt(live.size()))).commit();
            }
          }
          case 4 -> table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
          default -> {
            if (random.nextBoolean()) { // a data file of another live table
              DataFile shared = othersFiles.get(random.nextInt(othersFiles.size()));
              table.newAppend().appendFile(shared).commit();
              expectKept.add(path(shared.location()));
            } else { // a file outside every table
              Path dir = Files.createDirectories(tmp.resolve("outside-" + i));
              expectKept.add(borrow(table, dir.resolve("borrowed-" + step + ".parquet")));
            }
          }
        }
      }
      PurgePreview.Report r = preview(name).report();
      Map<Path, String> beforeSizes = snapshot(tmp);
      Set<Path> before = beforeSizes.keySet();
      CleanupJob job = f.purgeAsync(name);
      assertThat(job.state()).as(context + " " + job.lastError()).isEqualTo(CleanupJobState.SUCCEEDED);
      Set<Path> after = snapshot(tmp).keySet();
      Set<Path> deleted = new TreeSet<>(before);
      deleted.removeAll(after);

      assertThat(wouldDelete(r)).as(context + ": would delete == deleted").isEqualTo(deleted);
      assertThat(r.totalBytes()).as(context + ": bytes == the deleted files' sizes").isEqualTo(bytes(beforeSizes, deleted));
      assertThat(r.byKind().values().stream().mapToLong(PurgePreview.Amount::bytes).sum()).isEqualTo(r.totalBytes());
      assertThat(r.missing().sample()).as(context + ": named but already gone").allSatisfy(s -> assertThat(before)
          .doesNotContain(path(s)));
      // nothing Iceberg wrote is left to the sweep: only Hadoop's checksum sidecars are unnamed
      assertThat(r.sweep().sample()).as(context).allSatisfy(s -> assertThat(path(s).getFileName().toString())
          .startsWith(".").endsWith(".crc"));
      assertThat(keptPaths(r)).as(context + ": would keep == the table's files left").isEqualTo(expectKept);
      assertThat(after).as(context).containsAll(expectKept);
      assertThat(snapshot(path(table.location())).keySet()).as(context).isEmpty();
    }
    assertThat(ParquetTables.rows(f.catalog.loadTable(id("other")))).hasSize(6);
  }

  /**
   * Iceberg's snapshot expiry deletes a data file the expired snapshot deleted while a kept
   * snapshot's manifest still names it (the DELETED entry the deleting commit wrote, carried on by
   * the next commit; the purge's plan includes every entry, as Iceberg's dropTableData does): the
   * purge's delete of it changes nothing, so the preview counts it as missing, not as deleted, and
   * the bytes are the files' sizes on disk. (The CI failure at seed 7027932089228, table t4.)
   */
  @Test
  void aFileSnapshotExpiryAlreadyDeletedIsMissingNotDeleted() throws Exception {
    f = new PurgeFixture("h2", tmp);
    Table table = f.catalog.createTable(id("expired"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    List<DataFile> first = ParquetTables.append(table, 0);
    DataFile gone = first.get(0);
    table.newDelete().deleteFile(gone).commit();
    ParquetTables.append(table, 100); // carries the manifest with gone's DELETED entry on
    table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
    assertThat(path(gone.location())).doesNotExist();

    PurgePreview.Report r = preview("expired").report();
    assertThat(r.exact()).isTrue();
    assertThat(r.missing().sample()).singleElement().satisfies(s -> assertThat(path(s)).isEqualTo(path(gone.location())));
    assertThat(r.missing().bytes()).isEqualTo(gone.fileSizeInBytes());
    Map<Path, String> before = snapshot(tmp);
    CleanupJob job = f.purgeAsync("expired");
    assertThat(job.state()).as(job.lastError()).isEqualTo(CleanupJobState.SUCCEEDED);
    Set<Path> deleted = new TreeSet<>(before.keySet());
    deleted.removeAll(snapshot(tmp).keySet());
    assertThat(wouldDelete(r)).isEqualTo(deleted);
    assertThat(r.totalBytes()).isEqualTo(bytes(before, deleted));
    assertThat(r.byKind().get(PurgePreview.Kind.DATA_FILES).files()).isEqualTo(3); // 1 kept + 2 new
    assertThat(r.byKind().get(PurgePreview.Kind.OTHER).bytes()).isEqualTo(r.sweep().bytes());
  }

  /** The sizes (the snapshot's "size:mtime") of {@code paths}, summed. */
  private static long bytes(Map<Path, String> sizes, Set<Path> paths) {
    return paths.stream().mapToLong(p -> Long.parseLong(sizes.get(p).split(":")[0])).sum();
  }

  private PurgePreviews.Previewed preview(String name) {
    return new PurgePreviews(f.db, new FileIOFactory()).preview(f.row, id(name), ALL).orElseThrow();
  }

  /** Copies one of the table's data files to {@code to} and appends it to the table. */
  private static Path borrow(Table table, Path to) throws Exception {
    DataFile template;
    try (var tasks = table.newScan().planFiles()) {
      template = tasks.iterator().next().file();
    }
    Files.copy(path(template.location()), to);
    table.newAppend().appendFile(DataFiles.builder(table.spec()).copy(template).withPath(to.toString()).build())
        .commit();
    return to;
  }

  /** Every path the preview says would be deleted, as local paths; fails on a duplicate. */
  static Set<Path> wouldDelete(PurgePreview.Report r) {
    Set<Path> all = new TreeSet<>();
    long counted = 0;
    assertThat(r.exact()).isTrue();
    List<PurgePreview.Tally> tallies = new ArrayList<>(r.wouldDelete().values());
    tallies.add(r.sweep());
    for (PurgePreview.Tally t : tallies) {
      assertThat(t.sample()).hasSize((int) t.files());
      t.sample().forEach(s -> assertThat(all.add(path(s))).as("counted twice: " + s).isTrue());
      counted += t.files();
    }
    assertThat(r.totalWouldDelete()).isEqualTo(counted);
    return all;
  }

  /** Every path the preview says would be kept (samples read "path (reason)"). */
  static Set<Path> keptPaths(PurgePreview.Report r) {
    Set<Path> all = new TreeSet<>();
    for (PurgePreview.Tally t : r.wouldKeep().values()) {
      assertThat(t.sample()).hasSize((int) t.files());
      t.sample().forEach(s -> all.add(path(s.substring(0, s.indexOf(" (")))));
    }
    return all;
  }
}
