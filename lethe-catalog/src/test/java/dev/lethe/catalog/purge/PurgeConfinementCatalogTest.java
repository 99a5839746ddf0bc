package dev.lethe.catalog.purge;

import static dev.lethe.catalog.purge.PurgeFixture.files;
import static dev.lethe.catalog.purge.PurgeFixture.id;
import static dev.lethe.catalog.purge.PurgeFixture.path;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaimDao;
import dev.lethe.catalog.location.LocationPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rules 1 and 4 on the purge side, on a real catalog whose FileIO is Hadoop's (which resolves
 * {@code ..} in a path and so would act on the file it names): paths in metadata that lie outside
 * the table — however spelled — are kept and counted; another entry's claimed location inside the
 * table's is never entered; a retry resumes after the last finished phase.
 */
class PurgeConfinementCatalogTest {
  @TempDir Path tmp;
  private PurgeFixture f;

  @AfterEach
  void close() throws Exception {
    if (f != null) {
      f.close();
    }
  }

  /**
   * Rewrites the table's current metadata file in place with a statistics file at {@code statsPath}:
   * what an older server (or a writer behind the catalog's back) could leave; a commit of such a
   * path is refused since rule 1.
   */
  private static void pointStatisticsAt(Table table, String statsPath) {
    TableMetadata current = ((HasTableOperations) table).operations().current();
    TableMetadata withStats = TableMetadata.buildFrom(current)
        .setStatistics(new GenericStatisticsFile(current.currentSnapshot().snapshotId(), statsPath, 3, 0, List.of()))
        .build();
    FileIO io = table.io();
    TableMetadataParser.overwrite(withStats, io.newOutputFile(current.metadataFileLocation()));
  }

  @ParameterizedTest
  @CsvSource({
      "h2, false, %s/../../../outside/victim.puffin",
      "h2, true, %s/../../../outside/victim.puffin",
      "h2, true, %s/metadata/../../../../outside/victim.puffin",
      "h2, false, OUTSIDE",
      "h2, true, OUTSIDE",
      "postgresql, true, %s/../../../outside/victim.puffin",
      "postgresql, false, OUTSIDE"})
  void aStatisticsFileOutsideTheTableIsKeptHoweverSpelledAndTheJobCountsIt(String backend, boolean async,
      String spelling) throws Exception {
    f = new PurgeFixture(backend, tmp);
    Table table = ParquetTables.createRichTable(f.catalog, "t", Map.of());
    Path victim = Files.createDirectories(tmp.resolve("outside")).resolve("victim.puffin");
    Files.writeString(victim, "not this table's");
    String statsPath = spelling.equals("OUTSIDE") ? "file:" + victim : String.format(spelling, table.location());
    // the spelling names the victim (Hadoop's Path resolves '..' the same way)
    assertThat(new org.apache.hadoop.fs.Path(statsPath).toUri().getPath()).isEqualTo(victim.toString());
    pointStatisticsAt(table, statsPath);
    String location = table.location();

    if (async) {
      CleanupJob job = f.purgeAsync("t");
      assertThat(job.state()).as(String.valueOf(job.lastError())).isEqualTo(CleanupJobState.SUCCEEDED);
      assertThat(job.keptFiles()).isEqualTo(1);
    } else {
      assertThat(f.catalog.dropTable(id("t"), true)).isTrue();
    }

    assertThat(victim).exists().hasContent("not this table's");
    assertThat(files(path(location))).isEmpty();
  }

  @Test
  void anotherEntrysClaimInsideTheTableLocationIsNeverEntered() throws Exception {
    f = new PurgeFixture("h2", tmp, false);
    Table table = ParquetTables.createRichTable(f.catalog, "t", Map.of());
    String location = table.location();
    long jobId = f.enqueuer.dropTable(f.row, id("t"), "alice").jobId();
    Path nested = path(location).resolve("nested");
    Path nestedFile = Files.createDirectories(nested.resolve("data")).resolve("other.parquet");
    Files.writeString(nestedFile, "another entry's");
    // an overlap only a manual INSERT could create behind rule 2 (which refuses it, and would
    // refuse the drop had it been there before): a live table "other" also claims the nested directory
    Table other = f.catalog.createTable(id("other"), ParquetTables.SCHEMA);
    LocationPath otherRoot = LocationPath.parse(other.location());
    f.db.jdbi().useHandle(h -> {
      LocationClaimDao dao = new LocationClaimDao(h);
      ClaimOwner owner = dao.all().stream().filter(c -> c.root().equals(otherRoot)).findFirst().orElseThrow().owner();
      dao.insert(owner, LocationPath.parse(nested.toString()), 0L);
    });

    f.startPool();
    CleanupJob job = f.awaitEnd(jobId);

    assertThat(job.state()).as(String.valueOf(job.lastError())).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(nestedFile).exists();
    assertThat(files(path(location))).containsExactly(nestedFile);
  }

  @Test
  void aMissingManifestListFailsNamingItAndKeepsTheMetadata() throws Exception {
    f = new PurgeFixture("h2", tmp);
    Table table = ParquetTables.createRichTable(f.catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    String list = metadata.snapshots().get(1).manifestListLocation();
    Files.delete(path(list));

    CleanupJob job = f.purgeAsync("t");

    assertThat(job.state()).isEqualTo(CleanupJobState.FAILED);
    assertThat(job.lastError()).contains(path(list).toString().replaceFirst("^/", ""));
    assertThat(path(metadata.metadataFileLocation())).exists();
  }

  @ParameterizedTest
  @ValueSource(strings = {"DATA_AND_DELETE_FILES", "MANIFESTS", "MANIFEST_LISTS", "PREVIOUS_METADATA_FILES"})
  void aRetryResumesAfterTheLastFinishedPhaseSoFilesAnEarlierRunDeletedAreNotNeeded(String finished) throws Exception {
    f = new PurgeFixture("h2", tmp, false);
    Table table = ParquetTables.createRichTable(f.catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    String location = table.location();
    PurgePhase done = PurgePhase.valueOf(finished);
    long jobId = f.enqueuer.dropTable(f.row, id("t"), "alice").jobId();
    // what an earlier run that finished `done` (and recorded it) left: the files of those phases are gone
    PurgePlan plan = new PurgePlanner().plan(table.io(), metadata);
    for (PurgePhase phase : plan.phases()) {
      if (phase.compareTo(done) <= 0) {
        try (var batches = plan.batches(phase)) {
          batches.forEachRemaining(b -> b.forEach(p -> table.io().deleteFile(p)));
        }
      }
    }
    f.db.jdbi().useHandle(h -> h.createUpdate("UPDATE lethe_cleanup_job SET purged_through = :p WHERE job_id = :id")
        .bind("p", done.name()).bind("id", jobId).execute());
    assertThat(f.job(jobId).purgedThrough()).isEqualTo(done);

    f.startPool();
    CleanupJob job = f.awaitEnd(jobId);

    assertThat(job.state()).as(String.valueOf(job.lastError())).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(job.purgedThrough()).isEqualTo(PurgePhase.CURRENT_METADATA_FILE);
    assertThat(files(path(location))).isEmpty();
  }
}
