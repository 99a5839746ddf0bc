package dev.lethe.catalog.purge;

import dev.lethe.catalog.drop.AsyncPurgeService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The synchronous purge is a durable cleanup job (issue 9 rule 3) on H2, PostgreSQL and MariaDB:
 * {@code dropTable(id, true)} leaves a {@code SUCCEEDED} job row, and a commit racing it either is
 * acknowledged before the drop (and its files are purged) or gets 404.
 */
class SynchronousPurgeJobTest {
  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private LetheCatalog catalog;
  private String gateName;
  private GatedFileIO.Gate gate;

  private void open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    gateName = UUID.randomUUID().toString();
    gate = GatedFileIO.newGate(gateName);
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(),
        Map.of("io-impl", GatedFileIO.class.getName(), "test.gate", gateName));
    catalog = catalogs.catalog("main").orElseThrow();
    catalog.createNamespace(ParquetTables.NS, Map.of());
  }

  @AfterEach
  void close() throws Exception {
    if (catalogs != null) {
      catalogs.close();
    }
    if (gateName != null) {
      GatedFileIO.GATES.remove(gateName);
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.of(ParquetTables.NS, name);
  }

  private List<CleanupJob> jobs() {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).list(catalog.row().catalogId(), null, null, null, 100));
  }

  private static List<Path> filesUnder(String location) throws IOException {
    Path dir = Path.of(location.replaceFirst("^file:", ""));
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aSynchronousPurgeLeavesASucceededJobRowAndNothingUnderTheLocation(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String location = table.location();
    assertThat(filesUnder(location)).isNotEmpty();

    PurgeJobExecutor.Finished finished = catalog.purgeTable(id("t"), "alice");

    assertThat(finished.state()).isEqualTo(CleanupJobState.SUCCEEDED);
    List<CleanupJob> jobs = jobs();
    assertThat(jobs).hasSize(1);
    CleanupJob job = jobs.get(0);
    assertThat(job.jobId()).isEqualTo(finished.job().jobId());
    assertThat(job.state()).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(job.objectName()).isEqualTo("t");
    assertThat(job.createdBy()).isEqualTo("alice");
    assertThat(job.attempts()).isZero();
    assertThat(job.heartbeatAt()).isNull();
    assertThat(catalog.tableExists(id("t"))).isFalse();
    assertThat(filesUnder(location)).isEmpty();
    int claims = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM lethe_location_claim").mapTo(Integer.class).one());
    assertThat(claims).as("an ended job releases the claims it took over").isZero();
    // the Catalog API path is the same job
    ParquetTables.createRichTable(catalog, "u", Map.of());
    assertThat(catalog.dropTable(id("u"), true)).isTrue();
    assertThat(jobs()).extracting(CleanupJob::state).containsOnly(CleanupJobState.SUCCEEDED).hasSize(2);
    assertThat(catalog.dropTable(id("u"), true)).as("a repeated drop").isFalse();
    assertThatThrownBy(() -> catalog.purgeTable(id("u"), "alice")).isInstanceOf(NoSuchTableException.class);
    assertThat(jobs()).hasSize(2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aCommitRacingASynchronousPurgeIsAckedAndPurgedOrGets404NeverOrphaned(String backend) throws Exception {
    open(backend);
    Table sibling = ParquetTables.createRichTable(catalog, "sibling", Map.of());
    List<Path> siblingFiles = filesUnder(sibling.location());
    int rounds = Integer.getInteger("lethe.test.race-rounds", 20);
    int acked = 0;
    int refused = 0;
    for (int round = 0; round < rounds; round++) {
      String name = "t" + round;
      Table table = catalog.createTable(id(name), ParquetTables.SCHEMA, ParquetTables.SPEC);
      for (int i = 0; i < 8; i++) {
        ParquetTables.append(table, i * 10L);
      }
      String location = table.location();
      List<DataFile> pending = ParquetTables.writeDataFiles(table, 1000);
      AppendFiles append = table.newAppend();
      pending.forEach(append::appendFile);
      CyclicBarrier start = new CyclicBarrier(2);
      // even rounds: both start together (the drop usually wins); odd rounds: the drop starts when the
      // commit opens its new metadata file, racing the compare-and-set itself
      boolean late = round % 2 == 1;
      java.util.concurrent.CountDownLatch metadataOpened = new java.util.concurrent.CountDownLatch(1);
      gate.metadataOpened = metadataOpened;
      CompletableFuture<Throwable> commit = CompletableFuture.supplyAsync(() -> {
        try {
          start.await(30, TimeUnit.SECONDS);
          append.commit();
          return null;
        } catch (Throwable t) {
          return t;
        }
      });
      CompletableFuture<Boolean> drop = CompletableFuture.supplyAsync(() -> {
        try {
          start.await(30, TimeUnit.SECONDS);
          if (late && !metadataOpened.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the commit never wrote metadata");
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        return catalog.dropTable(id(name), true);
      });
      Throwable commitFailure = commit.get(60, TimeUnit.SECONDS);
      assertThat(drop.get(60, TimeUnit.SECONDS)).as("round %d: the drop", round).isTrue();
      if (commitFailure == null) {
        acked++;
      } else {
        // it lost at the catalog (the table is gone), or earlier, writing a manifest into a directory
        // the purge had just removed (LocalFileIO follows no link, so it opens the directories one by
        // one and meets the removal instead of recreating it)
        assertThat(commitFailure).as("round %d: a commit that lost the race", round).satisfiesAnyOf(
            t -> assertThat(t).isInstanceOf(NoSuchTableException.class),
            t -> assertThat(t).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageStartingWith("Failed to create file: " + location.replaceFirst("^file:", "")));
        refused++;
      }
      List<String> left = new ArrayList<>();
      if (commitFailure == null) {
        for (DataFile f : pending) {
          if (Files.exists(Path.of(f.location().replaceFirst("^file:", "")))) {
            left.add(f.location());
          }
        }
        assertThat(left).as("round %d: files of an acknowledged commit left behind", round).isEmpty();
        assertThat(filesUnder(location)).as("round %d", round).isEmpty();
      } else {
        // only what the losing writer wrote itself before its refused commit may remain: its data
        // files and its new metadata file, never part of any acknowledged table state
        List<String> expectedLeft = pending.stream().map(f -> Path.of(f.location().replaceFirst("^file:", "")).toString()).toList();
        assertThat(filesUnder(location)).as("round %d", round).allSatisfy(p -> assertThat(
            expectedLeft.contains(p.toString()) || p.getFileName().toString().endsWith(".metadata.json")).isTrue());
      }
      assertThat(catalog.tableExists(id(name))).isFalse();
    }
    assertThat(acked + refused).isEqualTo(rounds);
    // a losing writer may still be writing into the dropped location while the purge sweeps it; the
    // purge then does not claim success but leaves its job PENDING for a retry after the backoff
    // (docs/design/0003-purge-sweep-and-kept-files.md), which the workers finish
    assertThat(jobs()).filteredOn(j -> !j.objectName().equals("sibling")).hasSize(rounds)
        .allSatisfy(j -> {
          if (j.state() != CleanupJobState.SUCCEEDED) {
            assertThat(j.state()).isEqualTo(CleanupJobState.PENDING);
            assertThat(j.lastError()).contains("during the purge");
          }
        });
    try (AsyncPurgeService workers = new AsyncPurgeService(db, "default",
        new AsyncPurgeSettings(1, 1, 100, 20, 60_000, 5, 720, 10, 100),
        CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key")),
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), e -> { }, Clock.systemUTC())) {
      org.awaitility.Awaitility.await("every purge job ends SUCCEEDED").atMost(java.time.Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(jobs()).filteredOn(j -> !j.objectName().equals("sibling")).hasSize(rounds)
              .allSatisfy(j -> assertThat(j.state()).as("job %d: %s", j.jobId(), j.lastError())
                  .isEqualTo(CleanupJobState.SUCCEEDED)));
    }
    for (Path p : siblingFiles) {
      assertThat(p).as("nothing outside the dropped tables is touched").exists();
    }
    System.out.printf("race on %s: %d commits acknowledged and purged, %d refused with 404%n", backend, acked, refused);
  }
}
