package dev.lethe.it;

import static dev.lethe.it.AsyncPurgeHttp.drop;
import static dev.lethe.it.AsyncPurgeHttp.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several {@code lethe server} processes on one PostgreSQL or MariaDB database: a process killed
 * with SIGKILL mid-purge is taken over after the heartbeat timeout, and two live processes purging
 * 20 tables delete each file once and never run one job twice at the same time. Deletes are
 * counted by {@link CountingFileIO}, the servers' {@code io-impl}.
 */
class AsyncPurgeMultiProcessTest {
  private static final Namespace NS = Namespace.of("mp");
  private static final Pattern STARTED = Pattern.compile("Purge started: CleanupJob\\[id=(\\d+),");
  private static final String KEY = "q2Vn0CqP3mS0XlT3a3g8mYfH1D8Jw0uBq7c5XW0bE4Y=";

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

  private String database(String backend) throws Exception {
    fresh = Backends.createOrSkip(backend);
    return fresh.jdbcUrl();
  }

  private PurgeServer server(Path dir, String jdbcUrl, Map<String, String> keys) throws Exception {
    Map<String, String> all = new HashMap<>(keys);
    all.put("lethe.jdbc.url", jdbcUrl);
    all.put("lethe.iceberg-rest.async-purge.encryption-key", KEY);
    all.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "100");
    PurgeServer s = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, all));
    closeables.add(0, s);
    return s;
  }

  /** Adds a catalog whose FileIO counts (and optionally slows) deletes, straight into the entity table. */
  static void addCountingCatalog(String jdbcUrl, String name, Path warehouse, Path log, long delayMs) throws Exception {
    String props = "{\"counting.delay-ms\":\"" + delayMs + "\",\"counting.log\":\"" + log + "\",\"io-impl\":\"" + CountingFileIO.class.getName() + "\"}";
    try (Connection c = DriverManager.getConnection(jdbcUrl)) {
      String metalake;
      try (PreparedStatement s = c.prepareStatement("SELECT metalake_id FROM lethe_metalake WHERE name = 'default'");
          ResultSet rs = s.executeQuery()) {
        rs.next();
        metalake = rs.getString(1);
      }
      try (PreparedStatement s = c.prepareStatement("INSERT INTO lethe_catalog (catalog_id, metalake_id, name, warehouse, "
          + "properties, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
        s.setString(1, UUID.randomUUID().toString());
        s.setString(2, metalake);
        s.setString(3, name);
        s.setString(4, warehouse.toString());
        s.setString(5, props);
        s.setLong(6, System.currentTimeMillis());
        s.setLong(7, System.currentTimeMillis());
        s.executeUpdate();
      }
    }
  }

  private static Path workDir(String name) throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    return Files.createTempDirectory(work, name + "-");
  }

  private static String jobState(String jdbcUrl) throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        PreparedStatement s = c.prepareStatement("SELECT state FROM lethe_cleanup_job");
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The deletes {@link CountingFileIO} logged: {pid, path} per deleted file. */
  static List<String[]> deletions(Path log) throws Exception {
    List<String[]> out = new ArrayList<>();
    if (Files.exists(log)) {
      for (String line : Files.readAllLines(log)) {
        if (!line.isBlank()) {
          String[] parts = line.split(" ", 2);
          // Iceberg writes unpartitioned data files as ".../data//file"; compare file system paths
          out.add(new String[] {parts[0], Path.of(parts[1]).toString()});
        }
      }
    }
    return out;
  }

  private static List<String> startedJobIds(PurgeServer... servers) throws Exception {
    List<String> ids = new ArrayList<>();
    for (PurgeServer s : servers) {
      Matcher m = STARTED.matcher(s.logText());
      while (m.find()) {
        ids.add(m.group(1));
      }
    }
    return ids;
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void twoServersPurgingTwentyTablesDeleteEachFileOnceAndNeverShareAJob(String backend) throws Exception {
    String jdbc = database(backend);
    Path dir = workDir("mp-" + backend);
    Map<String, String> keys = Map.of("lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "5000",
        "lethe.iceberg-rest.async-purge.delete-batch-size", "4");
    PurgeServer a = server(dir.resolve("a"), jdbc, keys);
    Path log = dir.resolve("deletes.log");
    addCountingCatalog(jdbc, "counted", dir.resolve("warehouse"), log, 20);
    PurgeServer b = server(dir.resolve("b"), jdbc, keys);

    Set<String> expected = new HashSet<>();
    List<String> locations = new ArrayList<>();
    try (RESTCatalog client = AsyncPurgeHttp.client(a.icebergUri(), "counted")) {
      client.createNamespace(NS);
      for (int i = 0; i < 20; i++) {
        Table t = client.buildTable(TableIdentifier.of(NS, "t" + i), PurgeTables.SCHEMA)
            .withPartitionSpec(PartitionSpec.builderFor(PurgeTables.SCHEMA).identity("category").build()).create();
        PurgeTables.append(t, 0, 3, "a");
        PurgeTables.append(t, 10, 3, "b");
        locations.add(t.location());
        PurgeTables.files(t.location()).forEach(p -> expected.add(p.toString()));
      }
    }
    for (int i = 0; i < 20; i++) {
      assertThat(drop((i % 2 == 0 ? a : b).base(), "counted", "mp", "t" + i, true).statusCode()).isEqualTo(204);
    }

    AsyncPurgeHttp.await("every job to succeed", Duration.ofSeconds(180), () -> {
      for (int i = 0; i < 20; i++) {
        if (!"SUCCEEDED".equals(state(a.base(), "counted", "t" + i))) {
          return false;
        }
      }
      return true;
    });

    List<String[]> deleted = deletions(log);
    Map<String, Integer> perPath = new HashMap<>();
    Set<String> pids = new HashSet<>();
    for (String[] d : deleted) {
      perPath.merge(d[1], 1, Integer::sum);
      pids.add(d[0]);
    }
    assertThat(perPath.keySet()).isEqualTo(expected);
    assertThat(perPath.values()).allSatisfy(n -> assertThat(n).as("deletes of one file").isEqualTo(1));
    assertThat(pids).as("both processes purged").hasSize(2);
    List<String> started = startedJobIds(a, b);
    assertThat(started).hasSize(20).doesNotHaveDuplicates();
    for (String location : locations) {
      assertThat(PurgeTables.files(location)).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void aServerKilledMidPurgeIsTakenOverByANewProcessAfterTheHeartbeatTimeout(String backend) throws Exception {
    String jdbc = database(backend);
    Path dir = workDir("kill-" + backend);
    Map<String, String> keys = Map.of("lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "3000",
        "lethe.iceberg-rest.async-purge.delete-batch-size", "1",
        "lethe.iceberg-rest.async-purge.delete-threads", "1");
    PurgeServer first = server(dir.resolve("first"), jdbc, keys);
    Path log = dir.resolve("deletes.log");
    addCountingCatalog(jdbc, "slow", dir.resolve("warehouse"), log, 100);

    String location;
    Set<String> expected = new HashSet<>();
    try (RESTCatalog client = AsyncPurgeHttp.client(first.icebergUri(), "slow")) {
      client.createNamespace(NS);
      Table t = client.buildTable(TableIdentifier.of(NS, "t"), PurgeTables.SCHEMA).create();
      for (int i = 0; i < 12; i++) {
        PurgeTables.append(t, i * 10L, 2, "a");
      }
      location = t.location();
      PurgeTables.files(location).forEach(p -> expected.add(p.toString()));
    }
    assertThat(expected.size()).isGreaterThan(30);
    assertThat(drop(first.base(), "slow", "mp", "t", true).statusCode()).isEqualTo(204);
    AsyncPurgeHttp.await("the purge to start deleting", Duration.ofSeconds(60), () -> {
      try {
        return deletions(log).size() >= 3;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    first.kill();
    int deletedBeforeKill = deletions(log).size();
    assertThat(deletedBeforeKill).isLessThan(expected.size());
    assertThat(PurgeTables.files(location)).isNotEmpty();
    // nothing deletes while no process owns the job
    Awaitility.await("no deletion while no process owns the job").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
        .until(() -> deletions(log).size() == deletedBeforeKill);

    assertThat(jobState(jdbc)).isEqualTo("RUNNING"); // the dead owner's lease, going stale

    PurgeServer second = server(dir.resolve("second"), jdbc, keys);
    AsyncPurgeHttp.await("the new process to finish the job", Duration.ofSeconds(120),
        () -> "SUCCEEDED".equals(state(second.base(), "slow", "t")));

    assertThat(PurgeTables.files(location)).isEmpty();
    Set<String> deletedPaths = new HashSet<>();
    deletions(log).forEach(d -> deletedPaths.add(d[1]));
    assertThat(deletedPaths).isEqualTo(expected);
    assertThat(startedJobIds(second)).hasSize(1);
    assertThat(AsyncPurgeHttp.cleanups(second.base(), "slow", "?name=t").get(0).get("attempts").asInt()).isZero();
  }
}
