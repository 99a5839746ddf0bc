package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rule 2 of issue 9 across replicas (docs/design/0001-purge-confinement-and-ownership.md §3): two
 * {@code lethe server} processes on one PostgreSQL or MariaDB database race, round after round, to
 * register one metadata file (spelled differently) under two names, and to create two tables at
 * nested locations; in every round exactly one request wins and the other answers 409, and the
 * database ends with one claim-holding table per round.
 */
class OwnershipMultiProcessTest {
  private static final int ROUNDS = 15;
  // each server writes into its own namespace, so only the claims lock (not a namespace row lock) orders them
  private static final String NS = "/iceberg/v1/main/namespaces/own";
  private static final String NS_B = "/iceberg/v1/main/namespaces/own2";
  private static final String TABLE_BODY = "{\"name\":\"%s\",%s\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";

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

  private LetheProcess server(Path dataDir, String jdbcUrl) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    LetheProcess p = LetheProcess.start(port, dataDir, dataDir.resolve("server.log"), List.of("--jdbc-url", jdbcUrl), Map.of());
    closeables.add(0, p);
    return p;
  }

  private static String base(LetheProcess p) {
    return p.icebergUri().replace("/iceberg", "");
  }

  private static HttpResponse<String> post(LetheProcess p, String path, String body) throws Exception {
    return AsyncPurgeHttp.send(base(p), "POST", path, body, Map.of());
  }

  private static String createBody(String name, String location) throws Exception {
    return String.format(TABLE_BODY, name, location == null ? "" : "\"location\":" + AsyncPurgeHttp.JSON.writeValueAsString(location) + ",");
  }

  private static String registerBody(String name, String metadata) throws Exception {
    return "{\"name\":\"" + name + "\",\"metadata-location\":" + AsyncPurgeHttp.JSON.writeValueAsString(metadata) + "}";
  }

  /** Sends both requests at once (a barrier before each), and returns their status codes in order. */
  private static List<Integer> race(Callable<HttpResponse<String>> a, Callable<HttpResponse<String>> b) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CyclicBarrier barrier = new CyclicBarrier(2);
      Future<HttpResponse<String>> fa = pool.submit(() -> {
        barrier.await();
        return a.call();
      });
      Future<HttpResponse<String>> fb = pool.submit(() -> {
        barrier.await();
        return b.call();
      });
      List<Integer> codes = new ArrayList<>();
      for (HttpResponse<String> r : List.of(fa.get(), fb.get())) {
        assertThat(r.statusCode()).as(r.body()).isIn(200, 409);
        if (r.statusCode() == 409) {
          JsonNode error = AsyncPurgeHttp.JSON.readTree(r.body()).get("error");
          assertThat(error.get("type").asText()).isEqualTo("AlreadyExistsException");
          assertThat(error.get("message").asText()).contains("held by live table own");
        }
        codes.add(r.statusCode());
      }
      return codes;
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void concurrentOverlappingRegistersAndCreatesOnTwoServersLetExactlyOneWin(String backend) throws Exception {
    fresh = Backends.createOrSkip(backend);
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "own-mp-" + backend + "-");
    LetheProcess a = server(dir.resolve("a"), fresh.jdbcUrl());
    LetheProcess b = server(dir.resolve("b"), fresh.jdbcUrl());
    Path warehouse = dir.resolve("a").resolve("warehouse").toAbsolutePath();
    assertThat(post(a, "/iceberg/v1/main/namespaces", "{\"namespace\":[\"own\"]}").statusCode()).isEqualTo(200);
    assertThat(post(a, "/iceberg/v1/main/namespaces", "{\"namespace\":[\"own2\"]}").statusCode()).isEqualTo(200);

    for (int round = 0; round < ROUNDS; round++) {
      HttpResponse<String> created = post(a, NS + "/tables", createBody("src" + round, null));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      String metadata = AsyncPurgeHttp.JSON.readTree(created.body()).get("metadata-location").asText();
      assertThat(AsyncPurgeHttp.send(base(a), "DELETE", NS + "/tables/src" + round, null, Map.of()).statusCode()).isEqualTo(204);

      String ra = "ra" + round;
      String rb = "rb" + round;
      List<Integer> registers = race(() -> post(a, NS + "/register", registerBody(ra, "file:" + metadata)),
          () -> post(b, NS_B + "/register", registerBody(rb, "file://localhost" + metadata)));
      assertThat(registers).as("round %d registers", round).containsExactlyInAnyOrder(200, 409);

      Path outer = warehouse.resolve("nest" + round);
      String ca = "ca" + round;
      String cb = "cb" + round;
      List<Integer> creates = race(() -> post(a, NS + "/tables", createBody(ca, outer.toString())),
          () -> post(b, NS_B + "/tables", createBody(cb, "file://" + outer.resolve("inner"))));
      assertThat(creates).as("round %d creates", round).containsExactlyInAnyOrder(200, 409);
    }

    try (Connection c = DriverManager.getConnection(fresh.jdbcUrl()); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM lethe_table WHERE deleted_at = 0 AND deletion_id IS NULL")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(2 * ROUNDS);
    }
    try (Connection c = DriverManager.getConnection(fresh.jdbcUrl()); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(DISTINCT owner_id) FROM lethe_location_claim")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(2 * ROUNDS);
      assertThat(rs.getInt(2)).isEqualTo(2 * ROUNDS);
    }
  }
}
