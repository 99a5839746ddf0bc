package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two {@code lethe server} processes with soft delete on, one PostgreSQL or MariaDB database: both
 * expiry timers race for the same expired records, and still every record gets at most one cleanup
 * job, every file of a purged table is deleted exactly once (counted by {@link CountingFileIO}),
 * the tables dropped without purge keep every file, and every record is finalized.
 */
class SoftDeleteMultiProcessTest {
  private static final Namespace NS = Namespace.of("smp");
  private static final String KEY = "q2Vn0CqP3mS0XlT3a3g8mYfH1D8Jw0uBq7c5XW0bE4Y=";
  private static final int TABLES = 12;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private Backends.Fresh fresh;

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (fresh != null) {
      fresh.drop();
    }
  }

  private PurgeServer server(Path dir, String jdbcUrl) throws Exception {
    Map<String, String> keys = new HashMap<>();
    keys.put("lethe.jdbc.url", jdbcUrl);
    keys.put("lethe.iceberg-rest.async-purge.encryption-key", KEY);
    keys.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "100");
    keys.put("lethe.entity.soft-delete.enabled", "true");
    keys.put("lethe.entity.soft-delete.retention-ms", "3000");
    keys.put("lethe.entity.soft-delete.expiry-interval-ms", "50");
    PurgeServer s = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, keys));
    closeables.add(0, s);
    return s;
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void twoServersExpiringTheSameRecordsEnqueueOneJobEachAndDeleteEveryFileOnce(String backend) throws Exception {
    fresh = Backends.createOrSkip(backend);
    String jdbc = fresh.jdbcUrl();
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "soft-mp-" + backend + "-");
    PurgeServer a = server(dir.resolve("a"), jdbc);
    Path log = dir.resolve("deletes.log");
    AsyncPurgeMultiProcessTest.addCountingCatalog(jdbc, "counted", dir.resolve("warehouse"), log, 0);
    PurgeServer b = server(dir.resolve("b"), jdbc);

    Set<String> purgedFiles = new HashSet<>();
    List<String> purgedLocations = new ArrayList<>();
    Map<String, Set<Path>> keptFiles = new HashMap<>();
    try (RESTCatalog client = AsyncPurgeHttp.client(a.icebergUri(), "counted")) {
      client.createNamespace(NS);
      for (int i = 0; i < TABLES; i++) {
        Table t = client.buildTable(TableIdentifier.of(NS, "t" + i), PurgeTables.SCHEMA)
            .withPartitionSpec(PartitionSpec.builderFor(PurgeTables.SCHEMA).identity("category").build()).create();
        PurgeTables.append(t, 0, 3, "a");
        PurgeTables.append(t, 10, 3, "b");
        if (i % 3 == 2) {
          keptFiles.put(t.location(), PurgeTables.files(t.location()));
        } else {
          purgedLocations.add(t.location());
          PurgeTables.files(t.location()).forEach(p -> purgedFiles.add(p.toString()));
        }
      }
    }
    for (int i = 0; i < TABLES; i++) {
      SoftDeleteHttp via = new SoftDeleteHttp((i % 2 == 0 ? a : b).base(), "counted", "smp");
      assertThat(via.icebergDrop("smp", "t" + i, i % 3 != 2).statusCode()).isEqualTo(204);
    }
    SoftDeleteHttp viaA = new SoftDeleteHttp(a.base(), "counted", "smp");
    assertThat(viaA.deleted()).hasSize(TABLES);

    AsyncPurgeHttp.await("every deletion to be finalized", Duration.ofSeconds(180), () -> {
      try {
        return viaA.deleted().isEmpty();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    for (int i = 0; i < TABLES; i++) {
      int jobs = AsyncPurgeHttp.cleanups(b.base(), "counted", "?name=t" + i).size();
      assertThat(jobs).as("cleanup jobs of t" + i).isEqualTo(i % 3 == 2 ? 0 : 1);
    }
    Map<String, Integer> perPath = new HashMap<>();
    for (String[] d : AsyncPurgeMultiProcessTest.deletions(log)) {
      perPath.merge(d[1], 1, Integer::sum);
    }
    assertThat(perPath.keySet()).isEqualTo(purgedFiles);
    assertThat(perPath.values()).allSatisfy(n -> assertThat(n).as("deletes of one file").isEqualTo(1));
    for (String location : purgedLocations) {
      assertThat(PurgeTables.files(location)).isEmpty();
    }
    for (Map.Entry<String, Set<Path>> kept : keptFiles.entrySet()) {
      assertThat(PurgeTables.files(kept.getKey())).isEqualTo(kept.getValue());
    }
    try (RESTCatalog client = AsyncPurgeHttp.client(b.icebergUri(), "counted")) {
      for (int i = 0; i < TABLES; i++) {
        client.createTable(TableIdentifier.of(NS, "t" + i), PurgeTables.SCHEMA); // every name is free again
      }
    }
  }
}
