package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two real {@code lethe server} processes on one database racing the same admin action on the same
 * cleanup job over HTTP (docs/design/0440-job-control.md, docs/design/0443-abandon-and-rescue.md):
 * of a retry sent to both at once, and of a rescue sent to both at once, exactly one answers 200
 * and the other 409, round after round. No worker runs (0 threads), so only the actions move jobs.
 */
class JobActionRaceProcessTest {
  private static final String KEY = "q2Vn0CqP3mS0XlT3a3g8mYfH1D8Jw0uBq7c5XW0bE4Y=";
  private static final String CLEANUPS = "/api/metalakes/default/catalogs/main/cleanups/";
  private static final int ROUNDS = 5;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private Backends.Fresh fresh;
  private ExecutorService pool;

  @AfterEach
  void cleanUp() throws Exception {
    if (pool != null) {
      pool.shutdownNow();
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (fresh != null) {
      fresh.drop();
    }
  }

  private PurgeServer server(Path dir, String jdbcUrl, Path warehouse) throws Exception {
    Map<String, String> keys = new HashMap<>();
    keys.put("lethe.jdbc.url", jdbcUrl);
    keys.put("lethe.iceberg-rest.async-purge.encryption-key", KEY);
    keys.put("lethe.iceberg-rest.async-purge.worker-threads", "0");
    keys.put("lethe.catalog.warehouse", warehouse.toString());
    PurgeServer s = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, keys));
    closeables.add(0, s);
    return s;
  }

  private static Path workDir(String name) throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    return Files.createTempDirectory(work, name + "-");
  }

  /** Creates {@code race.<name>} and drops it with an async purge: its job stays PENDING (no workers). */
  private static long pendingJob(PurgeServer s, String name) throws Exception {
    HttpResponse<String> created = AsyncPurgeHttp.send(s.base(), "POST", "/iceberg/v1/main/namespaces/race/tables",
        "{\"name\":\"" + name + "\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\","
            + "\"required\":true,\"type\":\"long\"}]}}", Map.of());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    assertThat(AsyncPurgeHttp.drop(s.base(), "main", "race", name, true).statusCode()).isEqualTo(204);
    JsonNode jobs = AsyncPurgeHttp.cleanups(s.base(), "main", "?name=" + name);
    assertThat(jobs.get(0).get("state").asText()).isEqualTo("PENDING");
    return jobs.get(0).get("id").asLong();
  }

  /** Sends the same action to both servers at once; the two statuses, sorted. */
  private List<Integer> race(PurgeServer a, PurgeServer b, long id, String action) throws Exception {
    CyclicBarrier start = new CyclicBarrier(2);
    List<Future<Integer>> both = new ArrayList<>();
    for (PurgeServer s : List.of(a, b)) {
      Callable<Integer> send = () -> {
        start.await(30, TimeUnit.SECONDS);
        return AsyncPurgeHttp.send(s.base(), "POST", CLEANUPS + id + "/" + action, "{\"reason\":\"race\"}", Map.of())
            .statusCode();
      };
      both.add(pool.submit(send));
    }
    List<Integer> statuses = new ArrayList<>();
    for (Future<Integer> f : both) {
      statuses.add(f.get(60, TimeUnit.SECONDS));
    }
    return statuses.stream().sorted().toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql"})
  void twoServersRacingOneRetryAndOneRescueAnswerExactlyOne200AndOne409(String backend) throws Exception {
    fresh = Backends.createOrSkip(backend);
    String jdbc = fresh.jdbcUrl();
    Path dir = workDir("jobrace-" + backend);
    Path warehouse = dir.resolve("warehouse");
    PurgeServer a = server(dir.resolve("a"), jdbc, warehouse);
    PurgeServer b = server(dir.resolve("b"), jdbc, warehouse);
    pool = Executors.newFixedThreadPool(2);
    assertThat(AsyncPurgeHttp.send(a.base(), "POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"race\"]}", Map.of())
        .statusCode()).isEqualTo(200);

    for (int round = 0; round < ROUNDS; round++) {
      long retried = pendingJob(a, "r" + round);
      try (Connection c = DriverManager.getConnection(jdbc);
          PreparedStatement s = c.prepareStatement("UPDATE lethe_cleanup_job SET state = 'FAILED' WHERE job_id = ?")) {
        s.setLong(1, retried);
        assertThat(s.executeUpdate()).isEqualTo(1);
      }
      assertThat(race(a, b, retried, "retry")).as("retry, round %d", round).containsExactly(200, 409);
      assertThat(AsyncPurgeHttp.state(a.base(), "main", "r" + round)).isEqualTo("PENDING");

      long rescued = pendingJob(b, "s" + round);
      assertThat(race(a, b, rescued, "rescue")).as("rescue, round %d", round).containsExactly(200, 409);
      assertThat(AsyncPurgeHttp.state(a.base(), "main", "s" + round)).isEqualTo("CANCELLED");
      assertThat(AsyncPurgeHttp.send(b.base(), "GET", "/iceberg/v1/main/namespaces/race/tables/s" + round, null, Map.of())
          .statusCode()).isEqualTo(200);
    }
  }
}
