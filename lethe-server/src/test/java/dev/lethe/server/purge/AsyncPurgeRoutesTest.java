package dev.lethe.server.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The async purge over real HTTP on a real server (embedded H2, local warehouse). */
class AsyncPurgeRoutesTest {
  private static final ObjectMapper JSON = ServerHttp.JSON;
  private static final String TABLE_BODY = ServerHttp.TABLE_BODY;

  @TempDir Path dir;
  private LetheServer server;

  private void start(int workers) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, String.valueOf(workers));
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body, Map<String, String> headers) throws Exception {
    return new ServerHttp(server).send(method, path, body, headers);
  }

  private String createTable(String name) throws Exception {
    return new ServerHttp(server).createTable("db", name, Map.of());
  }

  private HttpResponse<String> drop(String name, Map<String, String> headers) throws Exception {
    return send("DELETE", "/iceberg/v1/main/namespaces/db/tables/" + name + "?purgeRequested=true", null, headers);
  }

  private JsonNode cleanups(String query) throws Exception {
    HttpResponse<String> r = send("GET", "/api/metalakes/default/catalogs/main/cleanups" + query, null, Map.of());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("cleanups");
  }

  private void awaitState(String name, String state) {
    AtomicReference<JsonNode> jobs = new AtomicReference<>();
    try {
      await("job of " + name + " to reach " + state).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
        jobs.set(cleanups("?name=" + name));
        return jobs.get().size() > 0 && jobs.get().get(0).get("state").asText().equals(state);
      });
    } catch (ConditionTimeoutException timedOut) {
      throw new AssertionError("job of " + name + " never reached " + state + ": " + jobs.get());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"X-Lethe-Async-Purge", "x-lethe-async-purge", "X-Gravitino-Async-Purge", "x-gravitino-async-purge"})
  void asyncHeaderInAnySpellingReturns204EnqueuesOneJobAndTheWorkerRemovesTheFiles(String header) throws Exception {
    start(1);
    String metadata = createTable("t");

    HttpResponse<String> r = drop("t", Map.of(header, "TRUE"));

    assertThat(r.statusCode()).isEqualTo(204);
    assertThat(send("HEAD", "/iceberg/v1/main/namespaces/db/tables/t", null, Map.of()).statusCode()).isEqualTo(404);
    awaitState("t", "SUCCEEDED");
    assertThat(Path.of(metadata)).doesNotExist();
    JsonNode jobs = cleanups("?namespace=db&name=t");
    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).get("objectType").asText()).isEqualTo("TABLE");
    assertThat(jobs.get(0).get("createdBy").asText()).isEqualTo("anonymous");
  }

  @Test
  void anAsyncDropOnEveryRouteAnswersWithItsPendingJob() throws Exception {
    start(0); // no worker: every job stays PENDING
    createTable("t");
    createTable("u");
    HttpResponse<String> view = send("POST", "/iceberg/v1/main/namespaces/db/views", "{\"name\":\"v\",\"schema\":{\"type\":"
        + "\"struct\",\"schema-id\":0,\"fields\":[]},\"view-version\":{\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,"
        + "\"summary\":{},\"default-namespace\":[\"db\"],\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\","
        + "\"dialect\":\"spark\"}]},\"properties\":{}}", Map.of());
    assertThat(view.statusCode()).as(view.body()).isEqualTo(200);
    Map<String, HttpResponse<String>> drops = Map.of(
        "t", drop("t", Map.of("X-Lethe-Async-Purge", "true")),
        "u", send("DELETE", "/api/metalakes/default/catalogs/main/schemas/db/tables/u?purgeRequested=true", null,
            Map.of("X-Gravitino-Async-Purge", "true")),
        "v", send("DELETE", "/iceberg/v1/main/namespaces/db/views/v", null, Map.of("X-Lethe-Async-Purge", "true")));
    for (Map.Entry<String, HttpResponse<String>> e : drops.entrySet()) {
      HttpResponse<String> r = e.getValue();
      assertThat(r.statusCode()).as(e.getKey() + ": " + r.body()).isEqualTo(204);
      JsonNode job = cleanups("?name=" + e.getKey()).get(0);
      assertThat(r.headers().firstValue("X-Lethe-Purge-Job")).as(e.getKey()).hasValue(job.get("id").asText());
      assertThat(r.headers().firstValue("X-Lethe-Purge-State")).as(e.getKey()).hasValue("PENDING");
    }
    // a metadata-only drop makes no job and names none
    createTable("w");
    HttpResponse<String> plain = send("DELETE", "/iceberg/v1/main/namespaces/db/tables/w", null, Map.of());
    assertThat(plain.statusCode()).isEqualTo(204);
    assertThat(plain.headers().firstValue("X-Lethe-Purge-Job")).isEmpty();
  }

  @Test
  void malformedHeaderIs400AndChangesNothing() throws Exception {
    start(1);
    String metadata = createTable("t");

    HttpResponse<String> r = drop("t", Map.of("X-Lethe-Async-Purge", "yes"));

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("X-Lethe-Async-Purge");
    assertThat(send("HEAD", "/iceberg/v1/main/namespaces/db/tables/t", null, Map.of()).statusCode()).isEqualTo(204);
    assertThat(Path.of(metadata)).exists();
    assertThat(cleanups("")).isEmpty();
  }

  @Test
  void absentHeaderPurgesSynchronouslyAsADurableJobThatHasSucceededWhenTheDropAnswers() throws Exception {
    start(1);
    String metadata = createTable("t");

    HttpResponse<String> r = drop("t", Map.of());
    assertThat(r.statusCode()).isEqualTo(204);

    assertThat(Path.of(metadata)).doesNotExist();
    JsonNode jobs = cleanups("");
    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(r.headers().firstValue("X-Lethe-Purge-Job")).hasValue(jobs.get(0).get("jobId") == null
        ? jobs.get(0).get("id").asText() : jobs.get(0).get("jobId").asText());
    assertThat(r.headers().firstValue("X-Lethe-Purge-State")).hasValue("SUCCEEDED");
  }

  @Test
  void whilePendingRepeatedDropIs404AndCreateRegisterRenameAre409NamingTheJobUntilItEnds() throws Exception {
    start(0); // this replica only enqueues
    String metadata = createTable("t");
    createTable("other");
    assertThat(drop("t", Map.of("X-Lethe-Async-Purge", "true")).statusCode()).isEqualTo(204);
    long jobId = cleanups("").get(0).get("id").asLong();

    assertThat(drop("t", Map.of("X-Lethe-Async-Purge", "true")).statusCode()).isEqualTo(404);
    assertThat(send("GET", "/iceberg/v1/main/namespaces/db/tables/t", null, Map.of()).statusCode()).isEqualTo(404);
    HttpResponse<String> create = send("POST", "/iceberg/v1/main/namespaces/db/tables", String.format(TABLE_BODY, "t"), Map.of());
    assertThat(create.statusCode()).isEqualTo(409);
    assertThat(create.body()).contains("cleanup job " + jobId);
    HttpResponse<String> register = send("POST", "/iceberg/v1/main/namespaces/db/register",
        "{\"name\":\"t\",\"metadata-location\":\"" + metadata + "\"}", Map.of());
    assertThat(register.statusCode()).isEqualTo(409);
    HttpResponse<String> rename = send("POST", "/iceberg/v1/main/tables/rename",
        "{\"source\":{\"namespace\":[\"db\"],\"name\":\"other\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"t\"}}", Map.of());
    assertThat(rename.statusCode()).isEqualTo(409);
    assertThat(cleanups("")).hasSize(1);
    assertThat(cleanups("?state=pending")).hasSize(1);

    server.close(); // a restarted server with workers picks the pending job up
    start(1);
    awaitState("t", "SUCCEEDED");
    assertThat(send("POST", "/iceberg/v1/main/tables/rename",
        "{\"source\":{\"namespace\":[\"db\"],\"name\":\"other\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"t\"}}", Map.of())
        .statusCode()).isEqualTo(204);
  }

  @Test
  void catalogDefaultMakesPurgeAsyncAndAnExplicitFalseKeepsItSynchronous() throws Exception {
    start(0);
    server.catalogs().ensureCatalog("lazy", dir.resolve("lazy").toString(), Map.of("async-purge.default", "true"));
    send("POST", "/iceberg/v1/lazy/namespaces", "{\"namespace\":[\"db\"]}", Map.of());
    for (String t : List.of("a", "b")) {
      assertThat(send("POST", "/iceberg/v1/lazy/namespaces/db/tables", String.format(TABLE_BODY, t), Map.of()).statusCode()).isEqualTo(200);
    }

    assertThat(send("DELETE", "/iceberg/v1/lazy/namespaces/db/tables/a?purgeRequested=true", null, Map.of()).statusCode()).isEqualTo(204);
    assertThat(send("DELETE", "/iceberg/v1/lazy/namespaces/db/tables/b?purgeRequested=true", null,
        Map.of("X-Gravitino-Async-Purge", "false")).statusCode()).isEqualTo(204);

    // a is left PENDING for workers (none on this server); b was purged on the request thread
    JsonNode jobs = JSON.readTree(send("GET", "/api/metalakes/default/catalogs/lazy/cleanups", null, Map.of()).body()).get("cleanups");
    assertThat(jobs).hasSize(2);
    assertThat(jobs.get(0).get("name").asText()).isEqualTo("b");
    assertThat(jobs.get(0).get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(jobs.get(1).get("name").asText()).isEqualTo("a");
    assertThat(jobs.get(1).get("state").asText()).isEqualTo("PENDING");
  }

  @Test
  void cleanupsNeverShowFileIoPropertiesAndBadQueriesAreJsonErrors() throws Exception {
    start(0);
    server.catalogs().ensureCatalog("s", dir.resolve("s").toString(), Map.of("s3.secret-access-key", "hunter2-secret"));
    send("POST", "/iceberg/v1/s/namespaces", "{\"namespace\":[\"db\"]}", Map.of());
    send("POST", "/iceberg/v1/s/namespaces/db/tables", String.format(TABLE_BODY, "t"), Map.of());
    assertThat(send("DELETE", "/iceberg/v1/s/namespaces/db/tables/t?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true")).statusCode()).isEqualTo(204);

    HttpResponse<String> list = send("GET", "/api/metalakes/default/catalogs/s/cleanups", null, Map.of());
    assertThat(list.body()).contains("\"PENDING\"").doesNotContain("hunter2").doesNotContain("secret").doesNotContain("metadata.json");

    HttpResponse<String> bad = send("GET", "/api/metalakes/default/catalogs/s/cleanups?state=DONE", null, Map.of());
    assertThat(bad.statusCode()).isEqualTo(400);
    JsonNode err = JSON.readTree(bad.body());
    assertThat(err.get("code").asInt()).isEqualTo(400);
    assertThat(err.get("type").asText()).isNotBlank();
    assertThat(err.get("message").asText()).contains("PENDING");
    assertThat(send("GET", "/api/metalakes/default/catalogs/nope/cleanups", null, Map.of()).statusCode()).isEqualTo(404);
    assertThat(send("GET", "/api/metalakes/nope/catalogs/s/cleanups", null, Map.of()).statusCode()).isEqualTo(404);
  }

  @Test
  void metricsArePrometheusTextWithThePurgeMeters() throws Exception {
    start(1);
    createTable("t");
    drop("t", Map.of("X-Lethe-Async-Purge", "true"));
    awaitState("t", "SUCCEEDED");

    AtomicReference<HttpResponse<String>> metrics = new AtomicReference<>();
    try { // counted just after the row is written
      await("lethe_purge_completed_total 1.0").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
        metrics.set(send("GET", "/metrics", null, Map.of()));
        return metrics.get().body().contains("lethe_purge_completed_total 1.0");
      });
    } catch (ConditionTimeoutException timedOut) {
      // the assertions below say what the last answer lacked
    }
    HttpResponse<String> r = metrics.get();

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("lethe_purge_jobs_pending", "lethe_purge_jobs_running", "lethe_purge_jobs_failed",
        "lethe_purge_oldest_pending_age_ms", "lethe_purge_completed_total 1.0", "lethe_purge_failed_total", "lethe_purge_files_deleted_total");
  }

  @Test
  void asyncViewDropRemovesItsMetadataFile() throws Exception {
    start(1);
    HttpResponse<String> v = send("POST", "/iceberg/v1/main/namespaces/db/views", "{\"name\":\"v\",\"schema\":{\"type\":\"struct\","
        + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},\"view-version\":{"
        + "\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,\"summary\":{},\"default-namespace\":[\"db\"],"
        + "\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"spark\"}]},\"properties\":{}}", Map.of());
    assertThat(v.statusCode()).as(v.body()).isEqualTo(200);
    String metadata = JSON.readTree(v.body()).get("metadata-location").asText();

    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/db/views/v", null, Map.of("X-Lethe-Async-Purge", "true")).statusCode())
        .isEqualTo(204);

    awaitState("v", "SUCCEEDED");
    assertThat(Path.of(metadata)).doesNotExist();
    assertThat(Files.exists(dir)).isTrue();
  }
}
