package dev.lethe.server.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin job actions {@code POST …/cleanups/{id}/retry}, {@code …/run-now}
 * (docs/design/0440-job-control.md), {@code …/abandon} and {@code …/rescue}
 * (docs/design/0443-abandon-and-rescue.md) against a real server over HTTP: a purge that FAILED on an
 * unreadable metadata file, repaired and retried, runs again and SUCCEEDED, releasing the name; every
 * refusal is the management {@code {code, type, message}} shape with the right status.
 */
class JobControlRoutesTest {
  private static final String NS = "/iceberg/v1/main/namespaces/db";
  private static final String CLEANUPS = "/api/metalakes/default/catalogs/main/cleanups";

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  private void start(String workers, Path authFile) throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, authFile, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, workers,
            ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1", ConfigKeys.SOFT_DELETE_ENABLED, "false")));
    http = new ServerHttp(server);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String token) throws Exception {
    return send(method, path, null, token);
  }

  private HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
    return http.send(method, path, body, token == null ? Map.of() : Map.of("Authorization", "Bearer " + token));
  }

  private JsonNode job(String name, String token) throws Exception {
    return ServerHttp.JSON.readTree(send("GET", CLEANUPS + "?name=" + name, token).body()).get("cleanups").get(0);
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return ServerHttp.JSON.readTree(r.body());
  }

  private static void assertError(HttpResponse<String> r, int status, String type, String message) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode body = json(r);
    assertThat(body.get("code").asInt()).isEqualTo(status);
    assertThat(body.get("type").asText()).isEqualTo(type);
    assertThat(body.get("message").asText()).contains(message);
  }

  @Test
  void aFailedPurgeRepairedAndRetriedSucceedsAndReleasesTheName() throws Exception {
    start("1", null);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}",
        Map.of()).statusCode()).isEqualTo(200);
    Path file = Path.of(http.createTable("db", "t", Map.of()));
    byte[] good = Files.readAllBytes(file);
    Files.write(file, new byte[] {0x1f, (byte) 0x8b, 0, 1, 2, 'x'});
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    await().atMost(Duration.ofSeconds(30)).until(() -> job("t", null).get("state").asText().equals("FAILED"));
    long id = job("t", null).get("id").asLong();
    String listed = job("t", null).toString();

    Files.write(file, good); // the operator repairs the cause
    HttpResponse<String> retry = send("POST", CLEANUPS + "/" + id + "/retry", null);

    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
    JsonNode answered = json(retry);
    // the listing's row shape, field for field
    assertThat(answered.fieldNames()).toIterable().containsExactlyElementsOf(ServerHttp.JSON.readTree(listed)::fieldNames);
    assertThat(answered.get("id").asLong()).isEqualTo(id);
    assertThat(answered.get("attempts").asInt()).isZero();
    assertThat(answered.get("nextAttemptAt").isNull()).isTrue();
    await().atMost(Duration.ofSeconds(30)).until(() -> job("t", null).get("state").asText().equals("SUCCEEDED"));
    assertThat(Files.exists(file)).isFalse();
    // the name is free again
    http.createTable("db", "t", Map.of());
    // a second retry of the same job is refused, naming the state
    HttpResponse<String> again = send("POST", CLEANUPS + "/" + id + "/retry", null);
    assertError(again, 409, "CleanupJobStateException", "it is SUCCEEDED");
    assertThat(json(again).get("state").asText()).isEqualTo("SUCCEEDED");
  }

  @Test
  void aNewTableCannotTakeTheLocationOfAFailedJobWhoseNameIsFree() throws Exception {
    start("1", null);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    Path file = Path.of(http.createTable("db", "t", Map.of()));
    Files.write(file, new byte[] {0x1f, (byte) 0x8b, 0, 1, 2, 'x'});
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    await().atMost(Duration.ofSeconds(30)).until(() -> job("t", null).get("state").asText().equals("FAILED"));
    long id = job("t", null).get("id").asLong();
    String failed = job("t", null).toString();
    // a retry may still delete there, so the FAILED job keeps its location (docs/design/0446-a-failed-job-keeps-its-locations.md)
    HttpResponse<String> created = http.send("POST", NS + "/tables", "{\"name\":\"u\",\"location\":\""
        + file.getParent().getParent() + "\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}", Map.of());

    assertThat(created.statusCode()).as(created.body()).isEqualTo(409);
    assertThat(json(created).get("error").get("type").asText()).isEqualTo("AlreadyExistsException");
    assertThat(json(created).get("error").get("message").asText())
        .contains("held by cleanup job " + id + " (FAILED) purging the dropped table db.t")
        .contains("until an operator retries the job (lethe catalog jobs retry " + id + ")");
    assertThat(job("t", null).toString()).isEqualTo(failed);
    // the name is free: a new table of that name gets a location of its own
    assertThat(http.createTable("db", "t", Map.of())).isNotEqualTo(file.toString());
    assertThat(send("POST", CLEANUPS + "/" + id + "/retry", null).statusCode()).isEqualTo(200);
  }

  @Test
  void onlyAnAdminActsAndEveryRefusalIsTheManagementShape() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[main]", "[main]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    start("0", auth); // no worker: the job stays PENDING
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}",
        Map.of("Authorization", "Bearer root-token")).statusCode()).isEqualTo(200);
    http.createTable("db", "t", Map.of("Authorization", "Bearer root-token"));
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true", "Authorization", "Bearer writer-token")).statusCode()).isEqualTo(204);
    long id = job("t", "reader-token").get("id").asLong();
    String before = job("t", "root-token").toString();

    for (String action : new String[] {"retry", "run-now"}) {
      String path = CLEANUPS + "/" + id + "/" + action;
      assertError(send("POST", path, null), 401, "NotAuthorizedException", "Authorization");
      assertError(send("POST", path, "reader-token"), 403, "ForbiddenException", "not an admin");
      assertError(send("POST", path, "writer-token"), 403, "ForbiddenException", "not an admin");
      assertError(send("POST", CLEANUPS + "/" + (id + 1000) + "/" + action, "root-token"), 404,
          "NoSuchCleanupJobException", "Cleanup job does not exist in catalog main: " + (id + 1000));
      assertError(send("POST", CLEANUPS + "/abc/" + action, "root-token"), 400, "IllegalArgumentException",
          "Invalid cleanup job id: expected a positive integer, got 'abc'");
      // other spellings of the same number are not ids: a sign, a leading zero, another script's digit
      for (String spelling : new String[] {"%2B" + id, "0" + id, "%EF%BC%91"}) {
        assertError(send("POST", CLEANUPS + "/" + spelling + "/" + action, "root-token"), 400, "IllegalArgumentException",
            "Invalid cleanup job id: expected a positive integer");
      }
      assertError(send("POST", CLEANUPS.replace("/main/", "/nope/") + "/" + id + "/" + action, "root-token"), 404,
          "NoSuchCatalogException", "nope");
    }
    HttpResponse<String> retry = send("POST", CLEANUPS + "/" + id + "/retry", "root-token");
    assertError(retry, 409, "CleanupJobStateException", "Cannot retry cleanup job " + id + ": it is PENDING");
    assertThat(json(retry).get("state").asText()).isEqualTo("PENDING");
    assertThat(job("t", "root-token").toString()).as("refusals changed nothing").isEqualTo(before);
    HttpResponse<String> runNow = send("POST", CLEANUPS + "/" + id + "/run-now", "root-token");
    assertThat(runNow.statusCode()).as(runNow.body()).isEqualTo(200);
    assertThat(runNow.body()).isEqualTo(before);
  }

  @Test
  void aFailedJobIsAbandonedWithItsReasonKeptAndShownInTheListing() throws Exception {
    start("1", null);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    Path file = Path.of(http.createTable("db", "t", Map.of()));
    Files.write(file, new byte[] {0x1f, (byte) 0x8b, 0, 1, 2, 'x'});
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    await().atMost(Duration.ofSeconds(30)).until(() -> job("t", null).get("state").asText().equals("FAILED"));
    long id = job("t", null).get("id").asLong();
    String failed = job("t", null).toString();
    String path = CLEANUPS + "/" + id + "/abandon";

    for (String bad : new String[] {null, "", "{}", "{\"reason\":\"  \"}", "{\"reason\":null}"}) {
      assertError(send("POST", path, bad, null), 400, "IllegalArgumentException", "Invalid reason: a reason is required");
    }
    assertError(send("POST", path, "{\"reason\":\"" + "x".repeat(1025) + "\"}", null), 400, "IllegalArgumentException",
        "Invalid reason: 1025 characters, at most 1024");
    assertError(send("POST", path, "{\"reason\":7}", null), 400, "IllegalArgumentException", "Invalid reason: expected a string");
    assertError(send("POST", path, "{\"why\":\"x\"}", null), 400, "IllegalArgumentException", "unknown field 'why'");
    assertError(send("POST", path, "not json", null), 400, "IllegalArgumentException", "Invalid body: not JSON");
    assertThat(job("t", null).toString()).as("refusals changed nothing").isEqualTo(failed);

    HttpResponse<String> abandoned = send("POST", path, "{\"reason\":\"removed the leftovers by hand\"}", null);

    assertThat(abandoned.statusCode()).as(abandoned.body()).isEqualTo(200);
    JsonNode answered = json(abandoned);
    assertThat(answered.fieldNames()).toIterable().containsExactlyElementsOf(ServerHttp.JSON.readTree(failed)::fieldNames);
    assertThat(answered.get("state").asText()).isEqualTo("ABANDONED");
    assertThat(answered.get("endedBy").asText()).isEqualTo("anonymous");
    assertThat(answered.get("endReason").asText()).isEqualTo("removed the leftovers by hand");
    assertThat(answered.get("endedAt").asLong()).isPositive();
    assertThat(job("t", null)).isEqualTo(answered);
    assertError(send("POST", path, "{\"reason\":\"again\"}", null), 409, "CleanupJobStateException",
        "Cannot abandon cleanup job " + id + ": it is ABANDONED; only a FAILED job can be abandoned");
    assertError(send("POST", CLEANUPS + "/" + id + "/retry", null), 409, "CleanupJobStateException", "it is ABANDONED");
    assertError(send("POST", CLEANUPS + "/" + id + "/rescue", null), 409, "CleanupJobStateException", "it is ABANDONED");
    assertThat(json(send("GET", CLEANUPS + "?state=abandoned", null)).get("cleanups")).hasSize(1);
    JsonNode receipt = json(send("GET", CLEANUPS + "/" + id + "/receipt", null));
    assertThat(receipt.get("state").asText()).as(receipt.toString()).isEqualTo("ABANDONED");
    assertThat(receipt.get("endedBy").asText()).as("who ended it, on the receipt").isEqualTo("anonymous");
    assertThat(receipt.get("endReason").asText()).isEqualTo("removed the leftovers by hand");
    assertThat(receipt.get("endedAt").asLong()).isEqualTo(answered.get("endedAt").asLong());
  }

  @Test
  void aPendingJobIsRescuedByAnAdminOnlyAndTheTableIsBack() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[main]", "[main]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    start("0", auth); // no worker: the job stays PENDING
    Map<String, String> root = Map.of("Authorization", "Bearer root-token");
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", root).statusCode())
        .isEqualTo(200);
    http.createTable("db", "t", root);
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true", "Authorization", "Bearer writer-token")).statusCode()).isEqualTo(204);
    long id = job("t", "root-token").get("id").asLong();
    String before = job("t", "root-token").toString();

    for (String action : new String[] {"abandon", "rescue"}) {
      String path = CLEANUPS + "/" + id + "/" + action;
      String body = "{\"reason\":\"r\"}";
      assertError(send("POST", path, body, null), 401, "NotAuthorizedException", "Authorization");
      assertError(send("POST", path, body, "reader-token"), 403, "ForbiddenException", "not an admin");
      assertError(send("POST", path, body, "writer-token"), 403, "ForbiddenException", "not an admin");
      assertError(send("POST", CLEANUPS + "/" + (id + 1000) + "/" + action, body, "root-token"), 404,
          "NoSuchCleanupJobException", "Cleanup job does not exist in catalog main: " + (id + 1000));
      assertError(send("POST", CLEANUPS + "/abc/" + action, body, "root-token"), 400, "IllegalArgumentException",
          "Invalid cleanup job id: expected a positive integer, got 'abc'");
    }
    assertError(send("POST", CLEANUPS + "/" + id + "/abandon", "{\"reason\":\"r\"}", "root-token"), 409,
        "CleanupJobStateException", "it is PENDING; only a FAILED job can be abandoned");
    assertThat(job("t", "root-token").toString()).as("refusals changed nothing").isEqualTo(before);
    assertThat(http.send("GET", NS + "/tables/t", null, root).statusCode()).isEqualTo(404);

    HttpResponse<String> rescued = send("POST", CLEANUPS + "/" + id + "/rescue", null, "root-token");

    assertThat(rescued.statusCode()).as(rescued.body()).isEqualTo(200);
    assertThat(json(rescued).get("state").asText()).isEqualTo("CANCELLED");
    assertThat(json(rescued).get("endedBy").asText()).isEqualTo("root");
    assertThat(json(rescued).get("endReason").isNull()).isTrue();
    assertThat(http.send("GET", NS + "/tables/t", null, root).statusCode()).isEqualTo(200);
    HttpResponse<String> again = send("POST", CLEANUPS + "/" + id + "/rescue", "{\"reason\":\"twice\"}", "root-token");
    assertError(again, 409, "CleanupJobStateException", "Cannot rescue cleanup job " + id + ": it is CANCELLED");
    assertThat(json(again).get("state").asText()).isEqualTo("CANCELLED");
  }

  @Test
  void aRescueOfAJobWhoseFilesAreGoneIsAConflictThatChangesNothing() throws Exception {
    start("0", null);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    Path file = Path.of(http.createTable("db", "t", Map.of()));
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    long id = job("t", null).get("id").asLong();
    String before = job("t", null).toString();
    Files.delete(file);

    assertError(send("POST", CLEANUPS + "/" + id + "/rescue", null), 409, "JobRescueRefusedException",
        "Cannot rescue cleanup job " + id + " (table db.t): its current metadata file");
    assertThat(job("t", null).toString()).isEqualTo(before);
    assertThat(http.send("GET", NS + "/tables/t", null, Map.of()).statusCode()).isEqualTo(404);
  }

  private static String principal(String name, String token, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + TokenHash.sha256Hex(token) + "\n    read: " + read
        + "\n    write: " + write + "\n";
  }
}
