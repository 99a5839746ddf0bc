package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Restore racing expiry (issue 4, docs/design/0202-soft-deletion.md §4 and §6) across two real {@code lethe
 * server} processes on one database, soft delete on with a short window and a 20 ms expiry timer in
 * each process.
 *
 * <p>Every round creates a real Iceberg table (some with a Parquet data file), drops it through
 * process B, then at its deadline plus an offset that varies per round (from −90 ms to +30 ms in even
 * rounds, −12 ms to +2 ms in odd ones; on the database clock) sends an undrop through process A
 * while both expiry timers claim expired records; every third round also sends an admin purge-now
 * through B at the same instant. Four rounds run at once. Each round must end exactly one of:
 *
 * <ul>
 *   <li><b>restored</b>: the undrop answered 200, the table loads with the same table uuid and
 *       metadata location, every file is still there, its row is live, and no deletion record or
 *       cleanup job exists for it;
 *   <li><b>purged</b>: the undrop answered 404 or 410, load answers 404, the table row and the
 *       record are gone, its one cleanup job {@code SUCCEEDED} and every file is gone (with {@code
 *       purgeRequested=false}: no job, every file kept), and the name can be created again.
 * </ul>
 *
 * <p>The deadline semantics are checked against the clocks too (this JVM's clock corrected by its
 * measured offset from the database's): an undrop-only round whose undrop was answered before the
 * deadline must be restored (no timer claims before it), and an undrop sent after the deadline must
 * be refused. The rounds whose undrop was in flight when the deadline passed are counted and must
 * be many, and both outcomes must be frequent.
 *
 * <p>After each round the database is checked directly: no table row points at a missing record or
 * at another table's, no record lacks its table row, no record is still {@code DELETED} well past
 * its deadline, no cleanup job {@code FAILED}. At the end no record and no pointer are left, and
 * neither server logged an error.
 */
class SoftDeleteRaceTest {
  private static final Namespace NS = Namespace.of("race");
  private static final String KEY = "q2Vn0CqP3mS0XlT3a3g8mYfH1D8Jw0uBq7c5XW0bE4Y=";
  private static final int ROUNDS = 200;
  private static final int LANES = 4;
  private static final long RETENTION_MS = 600;
  /** Past its deadline by this much a record still {@code DELETED} counts as stuck: the timers tick every 20 ms. */
  private static final long STUCK_AFTER_MS = 10_000;

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

  private LetheProcess server(Path dir, String jdbcUrl) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    LetheProcess p = LetheProcess.start(port, dir.resolve("data"), dir.resolve("server.log"), List.of("--jdbc-url", jdbcUrl),
        Map.of("LETHE_ENTITY_SOFT_DELETE_ENABLED", "true",
            "LETHE_ENTITY_SOFT_DELETE_RETENTION_MS", String.valueOf(RETENTION_MS),
            "LETHE_ENTITY_SOFT_DELETE_EXPIRY_INTERVAL_MS", "20",
            "LETHE_ICEBERG_REST_ASYNC_PURGE_POLL_INTERVAL_MS", "50",
            "LETHE_ICEBERG_REST_ASYNC_PURGE_ENCRYPTION_KEY", KEY));
    closeables.add(0, p);
    return p;
  }

  private static String base(LetheProcess p) {
    return p.icebergUri().substring(0, p.icebergUri().length() - "/iceberg".length());
  }

  /** What one round saw. */
  record Round(int index, long sentMs, long answeredMs, boolean withData, boolean purgeRequested, boolean purgeNow, boolean restored,
      int undropStatus, String undropMessage, int purgeNowStatus) {}

  /** The fixed parts of every round: the two servers, the database, one client per lane. */
  private record Race(String a, String b, String jdbc, String backend) {}

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void restoreRacingExpiryEndsEveryRoundRestoredOrPurgedNeverBothNeverNeither(String backend) throws Exception {
    fresh = Backends.createOrSkip(backend);
    String jdbc = fresh.jdbcUrl();
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "race-" + backend + "-");
    LetheProcess a = server(dir.resolve("a"), jdbc);
    LetheProcess b = server(dir.resolve("b"), jdbc);
    Race race = new Race(base(a), base(b), jdbc, backend);
    try (RESTCatalog client = AsyncPurgeHttp.client(a.icebergUri(), "main")) {
      client.createNamespace(NS);
    }

    long started = System.nanoTime();
    ExecutorService lanes = Executors.newFixedThreadPool(LANES);
    List<Future<List<Round>>> futures = new ArrayList<>();
    for (int lane = 0; lane < LANES; lane++) {
      int first = lane;
      futures.add(lanes.submit(() -> lane(race, first)));
    }
    List<Round> rounds = new ArrayList<>();
    try {
      for (Future<List<Round>> f : futures) {
        rounds.addAll(f.get(5, TimeUnit.MINUTES));
      }
    } finally {
      lanes.shutdownNow();
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

    try (Connection c = DriverManager.getConnection(jdbc)) {
      checkInvariants(c);
      assertThat(count(c, "SELECT COUNT(*) FROM lethe_entity_deletion")).as("records left at the end").isZero();
      assertThat(count(c, "SELECT COUNT(*) FROM lethe_table WHERE deletion_id IS NOT NULL")).as("pointers left").isZero();
    }
    assertThat(a.log()).as("log of A").doesNotContain(" ERROR ");
    assertThat(b.log()).as("log of B").doesNotContain(" ERROR ");
    long restored = rounds.stream().filter(Round::restored).count();
    long purged = rounds.size() - restored;
    long ownedByPurge = rounds.stream().filter(r -> r.undropStatus() == 410 && r.undropMessage().contains("a purge owns it")).count();
    long deadlinePassed = rounds.stream().filter(r -> r.undropStatus() == 410 && r.undropMessage().contains("deadline passed")).count();
    long afterFinalize = rounds.stream().filter(r -> r.undropStatus() == 404).count();
    long purgeNowWon = rounds.stream().filter(r -> r.purgeNow() && !r.restored()).count();
    long purgeNowLost = rounds.stream().filter(r -> r.purgeNow() && r.restored()).count();
    long straddling = rounds.stream().filter(r -> r.sentMs() <= 0 && r.answeredMs() >= 0).count();
    System.out.printf("SoftDeleteRaceTest[%s]: %d rounds in %d s: %d restored, %d purged (undrop 410 purge owns it: %d, "
            + "410 deadline passed: %d, 404 already purged: %d; purge-now rounds won by purge %d, by undrop %d; undrop in flight at the deadline: %d)%n",
        backend, rounds.size(), seconds, restored, purged, ownedByPurge, deadlinePassed, afterFinalize, purgeNowWon, purgeNowLost,
        straddling);
    assertThat(rounds).hasSize(ROUNDS);
    // the deadline landed mid-race: both outcomes happened, from undrop-only rounds as well
    assertThat(rounds.stream().filter(r -> !r.purgeNow() && r.restored()).count()).as("undrop-only rounds restored").isGreaterThan(10);
    assertThat(rounds.stream().filter(r -> !r.purgeNow() && !r.restored()).count()).as("undrop-only rounds purged").isGreaterThan(10);
    assertThat(purgeNowWon).as("purge-now rounds purged").isPositive();
    assertThat(purgeNowLost).as("purge-now rounds restored").isPositive();
    assertThat(straddling).as("rounds whose undrop was in flight at the deadline").isGreaterThan(10);
  }

  private List<Round> lane(Race race, int first) throws Exception {
    List<Round> out = new ArrayList<>();
    ExecutorService racers = Executors.newFixedThreadPool(2);
    try (RESTCatalog client = AsyncPurgeHttp.client(race.a() + "/iceberg", "main");
        Connection db = DriverManager.getConnection(race.jdbc())) {
      Skew skew = skew(db, race.backend());
      for (int i = first; i < ROUNDS; i += LANES) {
        out.add(round(race, client, db, racers, skew, i));
        checkInvariants(db);
      }
    } finally {
      racers.shutdownNow();
    }
    return out;
  }

  private Round round(Race race, RESTCatalog client, Connection db, ExecutorService racers, Skew skew, int i) throws Exception {
    String name = "r" + i;
    boolean withData = i % 10 < 3;
    boolean purgeRequested = i % 5 != 4;
    boolean purgeNow = i % 3 == 0;
    // odd rounds aim within a few ms of the deadline, so that even a fast undrop is in flight when it passes
    long offset = i % 2 == 0 ? -90 + (i * 37L) % 121 : -12 + (i * 7L) % 15;

    Table table = client.buildTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA).create();
    if (withData) {
      PurgeTables.append(table, i * 10L, 2, "a");
    }
    String uuid = table.uuid().toString();
    String metadata = ((HasTableOperations) table).operations().refresh().metadataFileLocation();
    Set<Path> files = PurgeTables.files(table.location());
    assertThat(files).isNotEmpty();

    HttpResponse<String> drop = AsyncPurgeHttp.send(race.b(), "DELETE", "/iceberg/v1/main/namespaces/race/tables/" + name
        + (purgeRequested ? "?purgeRequested=true" : ""), null, Map.of());
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(204);
    String tableId;
    String deletionId;
    long deadline;
    try (PreparedStatement s = db.prepareStatement("SELECT t.table_id, d.deletion_id, d.retention_expires_at FROM lethe_table t "
        + "JOIN lethe_entity_deletion d ON d.deletion_id = t.deletion_id WHERE t.name = ?")) {
      s.setString(1, name);
      try (ResultSet rs = s.executeQuery()) {
        assertThat(rs.next()).as("deletion record of " + name).isTrue();
        tableId = rs.getString(1);
        deletionId = rs.getString(2);
        deadline = rs.getLong(3);
      }
    }

    // the racers wait on one latch so the undrop through A and the purge-now through B leave together
    CountDownLatch go = new CountDownLatch(1);
    Future<Timed> undrop = racers.submit(racer(go, race.a(), "undrop", name, deadline, skew));
    Future<Timed> purge = purgeNow ? racers.submit(racer(go, race.b(), "purge", name, deadline, skew)) : null;
    long wait = deadline + offset - skew.ms() - System.currentTimeMillis();
    if (wait > 0) { // the seeded offset from the deadline is the thing under test: a fixed delay, not a condition
      Awaitility.await("the seeded offset").pollDelay(Duration.ofMillis(wait)).atMost(Duration.ofMillis(wait).plusSeconds(10)).until(() -> true);
    }
    go.countDown();
    Timed timed = undrop.get(60, TimeUnit.SECONDS);
    HttpResponse<String> u = timed.response();
    HttpResponse<String> p = purge == null ? null : purge.get(60, TimeUnit.SECONDS).response();
    String where = name + " (undrop sent " + timed.sentMs() + " ms and answered " + timed.answeredMs()
        + " ms from the deadline ±" + skew.errorMs() + " ms, " + u.statusCode() + " " + u.body()
        + (p == null ? "" : ", purge-now " + p.statusCode() + " " + p.body()) + ")";
    assertThat(u.statusCode()).as("undrop of " + where).isIn(200, 404, 410);
    if (p != null) {
      assertThat(p.statusCode()).as("purge-now of " + where).isIn(200, 202, 404);
    } else if (timed.answeredMs() < -skew.errorMs()) {
      // the restore read its now before the deadline, and no timer may claim before it: it must win
      assertThat(u.statusCode()).as("undrop answered before the deadline: " + where).isEqualTo(200);
    }
    if (timed.sentMs() > skew.errorMs()) {
      // the restore read its now at or after the deadline (exclusive for restore)
      assertThat(u.statusCode()).as("undrop sent after the deadline: " + where).isIn(404, 410);
    }

    awaitGone(db, deletionId, where);
    String pointer = null;
    boolean rowExists;
    try (PreparedStatement s = db.prepareStatement("SELECT deletion_id FROM lethe_table WHERE table_id = ?")) {
      s.setString(1, tableId);
      try (ResultSet rs = s.executeQuery()) {
        rowExists = rs.next();
        if (rowExists) {
          pointer = rs.getString(1);
        }
      }
    }
    assertThat(pointer).as("pointer of " + where).isNull();
    List<String> jobs = strings(db, "SELECT state FROM lethe_cleanup_job WHERE object_name = ?", name);
    HttpResponse<String> load = AsyncPurgeHttp.send(race.a(), "GET", "/iceberg/v1/main/namespaces/race/tables/" + name, null, Map.of());
    boolean restored = rowExists;
    if (restored) {
      assertThat(u.statusCode()).as("restored, so the undrop won: " + where).isEqualTo(200);
      if (p != null) {
        assertThat(p.statusCode()).as("restored, so purge-now found nothing: " + where).isEqualTo(404);
      }
      assertThat(load.statusCode()).as("load of " + where).isEqualTo(200);
      JsonNode body = AsyncPurgeHttp.JSON.readTree(load.body());
      assertThat(body.get("metadata-location").asText()).isEqualTo(metadata);
      assertThat(body.get("metadata").get("table-uuid").asText()).isEqualTo(uuid);
      assertThat(jobs).as("cleanup jobs of restored " + where).isEmpty();
      assertThat(PurgeTables.files(table.location())).as("files of restored " + where).isEqualTo(files);
    } else {
      assertThat(u.statusCode()).as("purged, so the undrop lost: " + where).isIn(404, 410);
      assertThat(load.statusCode()).as("load of purged " + where).isEqualTo(404);
      if (purgeRequested) {
        assertThat(jobs).as("cleanup jobs of purged " + where).containsExactly("SUCCEEDED");
        assertThat(PurgeTables.files(table.location())).as("files of purged " + where).isEmpty();
      } else {
        assertThat(jobs).as("metadata-only purge of " + where).isEmpty();
        assertThat(PurgeTables.files(table.location())).as("files kept by " + where).isEqualTo(files);
      }
      HttpResponse<String> again = AsyncPurgeHttp.send(race.a(), "POST", "/iceberg/v1/main/namespaces/race/tables",
          "{\"name\":\"" + name + "\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\","
              + "\"required\":true,\"type\":\"long\"}]}}", Map.of());
      assertThat(again.statusCode()).as("the name of purged " + where + " is free: " + again.body()).isEqualTo(200);
    }
    return new Round(i, timed.sentMs(), timed.answeredMs(), withData, purgeRequested, purgeNow, restored, u.statusCode(),
        AsyncPurgeHttp.JSON.readTree(u.body()).path("message").asText(""), p == null ? 0 : p.statusCode());
  }

  /** A racer's answer, with when it was sent and answered relative to the deadline (database clock, ms). */
  private record Timed(HttpResponse<String> response, long sentMs, long answeredMs) {}

  private static Callable<Timed> racer(CountDownLatch go, String base, String verb, String name, long deadline, Skew skew) {
    return () -> {
      go.await();
      long sent = System.currentTimeMillis() + skew.ms() - deadline;
      HttpResponse<String> r = AsyncPurgeHttp.send(base, "POST",
          "/api/metalakes/default/catalogs/main/schemas/race/tables/" + name + "/" + verb, null, Map.of());
      return new Timed(r, sent, System.currentTimeMillis() + skew.ms() - deadline);
    };
  }

  /** Waits until the record is restored away or finalized (a purge takes a timer tick, a worker run and finalization). */
  private static void awaitGone(Connection db, String deletionId, String where) throws Exception {
    try {
      Awaitility.await("deletion " + deletionId + " to go").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
          .until(() -> strings(db, "SELECT state FROM lethe_entity_deletion WHERE deletion_id = ?", deletionId).isEmpty());
    } catch (ConditionTimeoutException timedOut) {
      throw new AssertionError("deletion " + deletionId + " of " + where + " still there after 60 s: "
          + strings(db, "SELECT CONCAT(d.state, ' job ', COALESCE(j.state, '-')) FROM lethe_entity_deletion d "
              + "LEFT JOIN lethe_cleanup_job j ON j.job_id = d.purge_job_id WHERE d.deletion_id = ?", deletionId));
    }
  }

  /** The invariants that hold in every committed state, each read in one statement (one snapshot). */
  private static void checkInvariants(Connection db) throws SQLException {
    assertThat(count(db, "SELECT COUNT(*) FROM lethe_table t WHERE t.deletion_id IS NOT NULL AND NOT EXISTS ("
        + "SELECT 1 FROM lethe_entity_deletion d WHERE d.deletion_id = t.deletion_id AND d.entity_id = t.table_id)"))
        .as("table rows pointing at a missing or foreign record").isZero();
    assertThat(count(db, "SELECT COUNT(*) FROM lethe_entity_deletion d WHERE NOT EXISTS ("
        + "SELECT 1 FROM lethe_table t WHERE t.table_id = d.entity_id AND t.deletion_id = d.deletion_id)"))
        .as("records without their table row").isZero();
    assertThat(count(db, "SELECT COUNT(*) FROM lethe_cleanup_job WHERE state = 'FAILED'")).as("failed cleanup jobs").isZero();
    List<String> stuck = new ArrayList<>();
    try (PreparedStatement s = db.prepareStatement("SELECT deletion_id, retention_expires_at FROM lethe_entity_deletion "
        + "WHERE state = 'DELETED'"); ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        if (rs.getLong(2) < System.currentTimeMillis() - STUCK_AFTER_MS) {
          stuck.add(rs.getString(1));
        }
      }
    }
    assertThat(stuck).as("records DELETED " + STUCK_AFTER_MS + " ms past their deadline").isEmpty();
  }

  /**
   * The database clock minus this JVM's, ms: of 20 reads, the one with the shortest round trip,
   * against the middle of that round trip (so it is off by at most half of it, and that half is
   * added to the margin by the caller through {@link Skew#errorMs}).
   */
  private static Skew skew(Connection db, String backend) throws SQLException {
    String sql = backend.equals("postgresql") ? "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)"
        : "SELECT CAST(FLOOR(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000) AS SIGNED)";
    Skew best = null;
    try (PreparedStatement s = db.prepareStatement(sql)) {
      for (int i = 0; i < 20; i++) {
        long before = System.currentTimeMillis();
        long now;
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          now = rs.getLong(1);
        }
        long after = System.currentTimeMillis();
        // +1: both clocks are truncated to whole ms
        Skew sample = new Skew(now - (before + after) / 2, (after - before + 1) / 2 + 1);
        if (best == null || sample.errorMs() < best.errorMs()) {
          best = sample;
        }
      }
    }
    return best;
  }

  /** Database clock minus this JVM's clock, ms, known to within {@code errorMs}. */
  private record Skew(long ms, long errorMs) {}

  private static long count(Connection db, String sql) throws SQLException {
    try (PreparedStatement s = db.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static List<String> strings(Connection db, String sql, String param) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement s = db.prepareStatement(sql)) {
      s.setString(1, param);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }
}
