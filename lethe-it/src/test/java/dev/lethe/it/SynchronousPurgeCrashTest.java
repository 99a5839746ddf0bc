package dev.lethe.it;

import static dev.lethe.it.AsyncPurgeMultiProcessTest.addCountingCatalog;
import static dev.lethe.it.AsyncPurgeMultiProcessTest.deletions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server process killed with SIGKILL in the middle of a synchronous purge (issue 9 rule 3): the
 * table is already gone (its entry was removed with the job's insert, before any file), the job
 * stays {@code RUNNING} with a stale lease, and a restarted server reclaims and finishes it. Deletes
 * are slowed and counted by {@link CountingFileIO}.
 */
class SynchronousPurgeCrashTest {
  private static final Namespace NS = Namespace.of("sp");
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

  private PurgeServer server(Path dir, String jdbcUrl) throws Exception {
    Map<String, String> all = new HashMap<>();
    all.put("lethe.jdbc.url", jdbcUrl);
    all.put("lethe.iceberg-rest.async-purge.encryption-key", KEY);
    all.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "100");
    all.put("lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "3000");
    all.put("lethe.iceberg-rest.async-purge.delete-batch-size", "1");
    all.put("lethe.iceberg-rest.async-purge.delete-threads", "1");
    PurgeServer s = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, all));
    closeables.add(0, s);
    return s;
  }

  private static List<String[]> jobs(String jdbcUrl) throws Exception {
    List<String[]> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        PreparedStatement s = c.prepareStatement("SELECT job_id, state, attempts FROM lethe_cleanup_job ORDER BY job_id");
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        out.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void aServerKilledMidSynchronousPurgeLeavesAJobARestartedServerFinishes(String backend) throws Exception {
    fresh = Backends.createOrSkip(backend);
    String jdbc = fresh.jdbcUrl();
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "sync-kill-" + backend + "-");
    PurgeServer first = server(dir.resolve("first"), jdbc);
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

    // the synchronous purge (no async header) blocks its request while it deletes
    HttpClient http = HttpClient.newHttpClient();
    CompletableFuture<HttpResponse<String>> drop = http.sendAsync(HttpRequest.newBuilder(
            URI.create(first.base() + "/iceberg/v1/slow/namespaces/sp/tables/t?purgeRequested=true")).DELETE().build(),
        HttpResponse.BodyHandlers.ofString());
    await("the synchronous purge to start deleting").atMost(Duration.ofSeconds(60))
        .until(() -> deletions(log).size() >= 3);
    assertThat(drop).isNotDone();
    List<String[]> running = jobs(jdbc);
    assertThat(running).hasSize(1);
    assertThat(running.get(0)[1]).as("the job row exists before the purge ends").isEqualTo("RUNNING");

    first.kill();
    int deletedBeforeKill = deletions(log).size();
    assertThat(deletedBeforeKill).isLessThan(expected.size());
    assertThat(PurgeTables.files(location)).isNotEmpty();
    assertThat(drop).failsWithin(30, TimeUnit.SECONDS); // the connection died with the process
    assertThat(jobs(jdbc).get(0)[1]).isEqualTo("RUNNING"); // the dead owner's lease, going stale

    PurgeServer second = server(dir.resolve("second"), jdbc);
    // the entry went in the job's transaction: the table is gone for clients at once
    assertThat(AsyncPurgeHttp.send(second.base(), "GET", "/iceberg/v1/slow/namespaces/sp/tables/t", null, Map.of())
        .statusCode()).isEqualTo(404);
    assertThat(AsyncPurgeHttp.drop(second.base(), "slow", "sp", "t", null).statusCode())
        .as("a repeated drop").isEqualTo(404);
    await("the restarted server to finish the job").atMost(Duration.ofSeconds(120))
        .until(() -> "SUCCEEDED".equals(AsyncPurgeHttp.state(second.base(), "slow", "t")));

    assertThat(PurgeTables.files(location)).isEmpty();
    Set<String> deletedPaths = new HashSet<>();
    deletions(log).forEach(d -> deletedPaths.add(d[1]));
    assertThat(deletedPaths).isEqualTo(expected);
    List<String[]> after = jobs(jdbc);
    assertThat(after).hasSize(1);
    assertThat(after.get(0)[2]).as("a reclaim after a crash is not a failed attempt").isEqualTo("0");
  }
}
