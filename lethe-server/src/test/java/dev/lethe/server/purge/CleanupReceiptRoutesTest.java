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
 * {@code GET …/cleanups/{id}} and {@code GET …/cleanups/{id}/receipt}
 * (docs/design/0445-job-progress-and-receipts.md) against a real server over HTTP: a job's row shows
 * its path, phase, progress and lease; an ended job's receipt is served to readers with paths shown
 * by the reader's rule (docs/design/0424-what-a-reader-sees-of-paths.md); a job with no receipt is a
 * 404 in the management error shape.
 */
class CleanupReceiptRoutesTest {
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

  private HttpResponse<String> get(String path, String token) throws Exception {
    return http.send("GET", path, null, token == null ? Map.of() : Map.of("Authorization", "Bearer " + token));
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
  void anAsyncPurgeShowsItsProgressFieldsAndLeavesAReceipt() throws Exception {
    start("1", null);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    Path metadata = Path.of(http.createTable("db", "t", Map.of()));
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    long id = json(get(CLEANUPS + "?name=t", null)).get("cleanups").get(0).get("id").asLong();
    await().atMost(Duration.ofSeconds(30)).until(() ->
        json(get(CLEANUPS + "/" + id, null)).get("state").asText().equals("SUCCEEDED"));
    assertThat(Files.exists(metadata)).isFalse();

    JsonNode row = json(get(CLEANUPS + "/" + id, null));
    assertThat(row.get("purgePath").asText()).isEqualTo("ASYNC");
    assertThat(row.get("phase").isNull()).isTrue();
    assertThat(row.get("owner").isNull()).isTrue();
    assertThat(row.get("leaseAgeMs").isNull()).isTrue();
    assertThat(row.get("stale").asBoolean()).isFalse();
    assertThat(row.get("filesDeleted").asLong()).isEqualTo(1); // the one metadata file
    assertThat(row.get("bytesLowerBound").asBoolean()).isTrue(); // a metadata file's size is not in the metadata
    assertThat(row.get("firstClaimedAt").asLong()).isGreaterThanOrEqualTo(row.get("createdAt").asLong());

    HttpResponse<String> r = get(CLEANUPS + "/" + id + "/receipt", null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode receipt = json(r);
    assertThat(receipt.get("jobId").asLong()).isEqualTo(id);
    assertThat(receipt.get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(receipt.get("purgePath").asText()).isEqualTo("ASYNC");
    assertThat(receipt.get("createdBy").asText()).isEqualTo("anonymous");
    assertThat(receipt.get("filesDeleted").asLong()).isEqualTo(1);
    assertThat(receipt.get("deleted").get("METADATA_FILES").get("files").asLong()).isEqualTo(1);
    assertThat(receipt.get("deleted").get("METADATA_FILES").get("unknownSizes").asLong()).isEqualTo(1);
    assertThat(receipt.get("durationMs").asLong())
        .isEqualTo(receipt.get("endedAt").asLong() - receipt.get("createdAt").asLong());
    assertThat(receipt.get("leftovers").get("count").asLong()).isZero();
    assertThat(receipt.get("lastError").isNull()).isTrue();
  }

  @Test
  void aReaderReadsAFailedJobsReceiptWithoutAbsolutePathsAndEveryRefusalIsTheManagementShape() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[main]", "[main]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    start("1", auth);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}",
        Map.of("Authorization", "Bearer root-token")).statusCode()).isEqualTo(200);
    Path file = Path.of(http.createTable("db", "t", Map.of("Authorization", "Bearer root-token")));
    Files.write(file, new byte[] {0x1f, (byte) 0x8b, 0, 1, 2, 'x'}); // unparsable: the purge FAILS at once
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true", "Authorization", "Bearer writer-token")).statusCode()).isEqualTo(204);
    long id = json(get(CLEANUPS + "?name=t", "reader-token")).get("cleanups").get(0).get("id").asLong();
    await().atMost(Duration.ofSeconds(30)).until(() ->
        json(get(CLEANUPS + "/" + id, "reader-token")).get("state").asText().equals("FAILED"));

    JsonNode asAdmin = json(get(CLEANUPS + "/" + id + "/receipt", "root-token"));
    assertThat(asAdmin.get("state").asText()).isEqualTo("FAILED");
    assertThat(asAdmin.get("createdBy").asText()).isEqualTo("writer");
    assertThat(asAdmin.get("attempts").asInt()).isEqualTo(1);
    assertThat(asAdmin.get("filesDeleted").asLong()).isZero();
    assertThat(asAdmin.get("lastError").asText()).contains(file.toString());
    HttpResponse<String> asReader = get(CLEANUPS + "/" + id + "/receipt", "reader-token");
    assertThat(asReader.statusCode()).isEqualTo(200);
    assertThat(json(asReader).get("lastError").asText()).contains("<table>/metadata/").doesNotContain(file.toString());
    assertThat(asReader.body()).doesNotContain(dir.toString());

    assertError(get(CLEANUPS + "/" + id + "/receipt", null), 401, "NotAuthorizedException", "Authorization");
    assertError(get(CLEANUPS + "/" + (id + 1000) + "/receipt", "reader-token"), 404, "NoSuchCleanupReceiptException",
        "Cleanup job has no receipt in catalog main: " + (id + 1000));
    assertError(get(CLEANUPS + "/" + (id + 1000), "reader-token"), 404, "NoSuchCleanupJobException",
        "Cleanup job does not exist in catalog main: " + (id + 1000));
    assertError(get(CLEANUPS + "/abc/receipt", "reader-token"), 400, "IllegalArgumentException",
        "Invalid cleanup job id: expected a positive integer, got 'abc'");
    assertError(get(CLEANUPS.replace("/main/", "/nope/") + "/" + id + "/receipt", "root-token"), 404,
        "NoSuchCatalogException", "nope");
  }

  @Test
  void aJobThatHasNotEndedHasNoReceipt() throws Exception {
    start("0", null); // no worker: the job stays PENDING
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    http.createTable("db", "t", Map.of());
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    long id = json(get(CLEANUPS + "?name=t", null)).get("cleanups").get(0).get("id").asLong();
    assertError(get(CLEANUPS + "/" + id + "/receipt", null), 404, "NoSuchCleanupReceiptException",
        "Cleanup job has no receipt in catalog main: " + id);
    JsonNode row = json(get(CLEANUPS + "/" + id, null));
    assertThat(row.get("state").asText()).isEqualTo("PENDING");
    assertThat(row.get("filesDeleted").asLong()).isZero();
    assertThat(row.get("owner").isNull()).isTrue();
  }

  private static String principal(String name, String token, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + TokenHash.sha256Hex(token) + "\n    read: " + read
        + "\n    write: " + write + "\n";
  }
}
