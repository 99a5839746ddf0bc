package dev.lethe.catalog.purge;

import static dev.lethe.catalog.purge.PurgeFixture.files;
import static dev.lethe.catalog.purge.PurgeFixture.id;
import static dev.lethe.catalog.purge.PurgeFixture.path;
import static dev.lethe.catalog.purge.PurgeFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rules 1 and 4 of issue 9 as invariants over random tables (seeded; {@code
 * -Dlethe.test.purge.seed=N} replays a run, {@code -Dlethe.test.purge.tables=N} makes it longer).
 * Each table gets a random mix of snapshots, data files appended from outside its location (in
 * several spellings), statistics files outside it (committed, or with {@code ..} segments written
 * behind the catalog's back), stray files, failed-commit files and {@code .crc} sidecars inside it,
 * and sometimes a missing manifest; it is then purged synchronously or asynchronously through a
 * catalog whose FileIO is Hadoop's (which would follow {@code ..}).
 *
 * <p>Oracle, after every purge: every file outside the table is still there, unchanged; a bystander
 * table's files are unchanged; a purge with nothing missing leaves nothing under the location (the
 * async job {@code SUCCEEDED} with the exact kept count); a purge with a missing manifest keeps the
 * metadata file and its async job is {@code FAILED} naming the manifest.
 */
class PurgeInvariantRandomizedTest {
  @TempDir Path tmp;
  private PurgeFixture f;

  @AfterEach
  void close() throws Exception {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void aPurgeDeletesNothingOutsideTheTableAndASuccessLeavesNothingInside() throws Exception {
    long seed = Long.getLong("lethe.test.purge.seed", System.nanoTime());
    int tables = Integer.getInteger("lethe.test.purge.tables", 8);
    System.out.println("PurgeInvariantRandomizedTest seed=" + seed + " tables=" + tables
        + " (replay with -Dlethe.test.purge.seed=" + seed + ")");
    Random random = new Random(seed);
    f = new PurgeFixture("h2", tmp);

    Table bystander = f.catalog.createTable(id("bystander"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    ParquetTables.append(bystander, 0);
    Path bystanderDir = path(bystander.location());
    Map<Path, String> bystanderFiles = snapshot(bystanderDir);

    Map<Path, byte[]> outside = new HashMap<>();
    for (int i = 0; i < tables; i++) {
      String name = "r" + i;
      String context = "seed=" + seed + " table=" + name;
      Table table = f.catalog.createTable(id(name), ParquetTables.SCHEMA, ParquetTables.SPEC);
      Path location = path(table.location());
      Path elsewhere = Files.createDirectories(tmp.resolve("outside-" + i));
      List<DataFile> written = new ArrayList<>();
      int snapshots = 1 + random.nextInt(3);
      for (int s = 0; s < snapshots; s++) {
        written.addAll(ParquetTables.append(table, s * 100L));
      }
      int expectedKept = 0;

      if (random.nextBoolean()) { // a data file added from outside the table location
        DataFile template = written.get(random.nextInt(written.size()));
        Path copy = elsewhere.resolve("borrowed-" + i + ".parquet");
        Files.copy(path(template.location()), copy);
        table.newAppend().appendFile(DataFiles.builder(table.spec()).copy(template)
            .withPath(spell(random, copy)).build()).commit();
        expectedKept++;
      }
      Map<Long, String> stats = new HashMap<>();
      if (random.nextBoolean()) { // a statistics file outside, committed through the catalog
        Path file = Files.writeString(elsewhere.resolve("stats-" + i + ".puffin"), "outside stats");
        long snapshotId = table.currentSnapshot().snapshotId();
        table.updateStatistics().setStatistics(
            new GenericStatisticsFile(snapshotId, spell(random, file), 13, 0, List.of())).commit();
        stats.put(snapshotId, file.toString());
      }
      for (int k = random.nextInt(4); k > 0; k--) { // strays, failed commits, sidecars inside
        String[] kinds = {"data/category=zz/junk-" + k + ".bin", "metadata/0009" + k + "-failed.metadata.json",
            "metadata/.snap-" + k + ".avro.crc", "data/category=a/.part-" + k + ".parquet.crc", ".trash-" + k};
        Path stray = location.resolve(kinds[random.nextInt(kinds.length)]);
        Files.createDirectories(stray.getParent());
        Files.writeString(stray, "stray");
      }
      if (random.nextInt(3) == 0) { // '..' spelling written behind the catalog's back (a commit refuses it)
        Path victim = Files.writeString(elsewhere.resolve("dotdot-" + i + ".puffin"), "outside via ..");
        String spelled = table.location() + "/metadata/../../../../" + tmp.relativize(victim);
        assertThat(new org.apache.hadoop.fs.Path(spelled).toUri().getPath()).as(context).isEqualTo(victim.toString());
        TableMetadata current = ((HasTableOperations) table).operations().current();
        long snapshotId = current.snapshots().get(0).snapshotId();
        TableMetadataParser.overwrite(TableMetadata.buildFrom(current)
                .setStatistics(new GenericStatisticsFile(snapshotId, spelled, 14, 0, List.of())).build(),
            table.io().newOutputFile(current.metadataFileLocation()));
        stats.put(snapshotId, victim.toString());
      }
      expectedKept += stats.size();
      for (Path p : files(tmp)) {
        if (!p.startsWith(tmp.resolve("warehouse")) && p.getFileName().toString().matches("(borrowed|stats|dotdot)-.*")) {
          outside.putIfAbsent(p, Files.readAllBytes(p));
        }
      }

      TableMetadata last = ParquetTables.metadata(f.catalog.loadTable(id(name)));
      String missingManifest = null;
      if (random.nextInt(5) == 0) { // a manifest removed behind the catalog's back
        Snapshot s = last.snapshots().get(random.nextInt(last.snapshots().size()));
        List<ManifestFile> manifests = s.allManifests(table.io());
        missingManifest = manifests.get(random.nextInt(manifests.size())).path();
        Files.delete(path(missingManifest));
      }

      boolean async = random.nextBoolean();
      context += " async=" + async + " missing=" + missingManifest + " expectedKept=" + expectedKept;
      if (async) {
        CleanupJob job = f.purgeAsync(name);
        if (missingManifest == null) {
          assertThat(job.state()).as(context + " " + job.lastError()).isEqualTo(CleanupJobState.SUCCEEDED);
          assertThat(job.keptFiles()).as(context).isEqualTo(expectedKept);
        } else {
          assertThat(job.state()).as(context).isEqualTo(CleanupJobState.FAILED);
          assertThat(job.lastError()).as(context).contains(path(missingManifest).getFileName().toString());
        }
      } else {
        assertThat(f.catalog.dropTable(id(name), true)).as(context).isTrue();
      }

      if (missingManifest == null) {
        assertThat(files(location)).as(context + ": a success leaves nothing").isEmpty();
        assertThat(location).as(context).doesNotExist();
      } else {
        assertThat(path(last.metadataFileLocation())).as(context + ": a failure keeps the metadata").exists();
      }
      for (Map.Entry<Path, byte[]> e : outside.entrySet()) {
        assertThat(e.getKey()).as(context + ": outside file deleted").exists();
        assertThat(Files.readAllBytes(e.getKey())).as(context).isEqualTo(e.getValue());
      }
      assertThat(snapshot(bystanderDir)).as(context + ": another table's files").isEqualTo(bystanderFiles);
    }
    assertThat(ParquetTables.rows(f.catalog.loadTable(id("bystander")))).hasSize(6);
  }

  /** One of the spellings of a local path a writer may use. */
  private static String spell(Random random, Path p) {
    return switch (random.nextInt(3)) {
      case 0 -> p.toString();
      case 1 -> "file:" + p;
      default -> "file://" + p;
    };
  }
}
