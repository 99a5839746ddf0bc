package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The routes that drop, purge or restore a table whose current metadata file is spoiled
 * (docs/design/0431-a-spoiled-metadata-file-is-named-on-every-route.md): an undrop answers a 500
 * {@code UnreadableMetadataException} naming the file (a missing file stays the 409 of a hollow
 * table), a drop with purge and an admin purge-now are accepted and their cleanup job ends with an
 * error naming the file, and the purge worker goes on with the next job. Real server, real HTTP,
 * embedded H2, local warehouse.
 */
class UnreadableMetadataDropAndRestoreTest {
  private static final String NS = "/iceberg/v1/main/namespaces/db";
  private static final String API = "/api/metalakes/default/catalogs/main/schemas/db/tables";
  private static final String CLEANUPS = "/api/metalakes/default/catalogs/main/cleanups";

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  private void start(boolean softDelete) throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1",
            ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1", ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDelete))));
    http = new ServerHttp(server);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode())
        .isEqualTo(200);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static JsonNode error(HttpResponse<String> r) throws IOException {
    JsonNode body = ServerHttp.JSON.readTree(r.body());
    return body.has("error") ? body.get("error") : body;
  }

  private JsonNode job(String name) throws Exception {
    for (JsonNode job : ServerHttp.JSON.readTree(http.send("GET", CLEANUPS + "?name=" + name, null, Map.of()).body())
        .get("cleanups")) {
      return job;
    }
    throw new AssertionError("no cleanup job of " + name);
  }

  private void awaitJobFailedNaming(String name, String file) {
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      JsonNode job = job(name);
      assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("FAILED");
      assertThat(job.get("lastError").asText()).contains(file);
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"not-json", "not-metadata", "truncated", "empty"})
  void undropOfATableWhoseMetadataFileIsSpoiledAnswers500NamingTheFile(String how) throws Exception {
    start(true);
    String file = http.createTable("db", "t", Map.of());
    assertThat(http.send("DELETE", NS + "/tables/t", null, Map.of()).statusCode()).isEqualTo(204);
    spoil(Path.of(file), how);

    HttpResponse<String> undrop = http.send("POST", API + "/t/undrop", null, Map.of());
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(500);
    assertThat(error(undrop).get("type").asText()).isEqualTo("UnreadableMetadataException");
    assertThat(error(undrop).get("message").asText()).contains(file).contains("db.t");
    // nothing changed: the record is still retained
    assertThat(http.send("GET", API + "/t?deleted=true", null, Map.of()).statusCode()).isEqualTo(200);
  }

  @Test
  void undropOfATableWhoseMetadataFileIsMissingStaysTheHollow409() throws Exception {
    start(true);
    String file = http.createTable("db", "t", Map.of());
    assertThat(http.send("DELETE", NS + "/tables/t", null, Map.of()).statusCode()).isEqualTo(204);
    Files.delete(Path.of(file));
    HttpResponse<String> undrop = http.send("POST", API + "/t/undrop", null, Map.of());
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(409);
    assertThat(error(undrop).get("message").asText()).contains(file);
  }

  @Test
  void aPurgeOfASpoiledTableEndsItsJobFailedNamingTheFileAndTheWorkerGoesOn() throws Exception {
    start(false);
    String sync = http.createTable("db", "sync", Map.of());
    String async = http.createTable("db", "async", Map.of());
    http.createTable("db", "healthy", Map.of());
    spoil(Path.of(sync), "not-json");
    spoil(Path.of(async), "truncated");

    assertThat(http.send("DELETE", NS + "/tables/sync?purgeRequested=true", null, Map.of()).statusCode()).isEqualTo(204);
    awaitJobFailedNaming("sync", sync);
    assertThat(http.send("DELETE", NS + "/tables/async?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    awaitJobFailedNaming("async", async);
    // the worker is alive: the next job runs to the end
    assertThat(http.send("DELETE", NS + "/tables/healthy?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"))
        .statusCode()).isEqualTo(204);
    await().atMost(Duration.ofSeconds(30)).until(() -> job("healthy").get("state").asText().equals("SUCCEEDED"));
  }

  @Test
  void anAdminPurgeNowOfASpoiledRetainedTableEndsItsJobFailedNamingTheFile() throws Exception {
    start(true);
    String file = http.createTable("db", "t", Map.of());
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, Map.of()).statusCode()).isEqualTo(204);
    spoil(Path.of(file), "not-json");
    HttpResponse<String> now = http.send("POST", API + "/t/purge", null, Map.of());
    assertThat(now.statusCode()).as(now.body()).isEqualTo(202);
    awaitJobFailedNaming("t", file);
  }

  /**
   * Seeded random spoilings (cut at a random offset, random bytes, an empty file): load, commit and
   * undrop answer the specific 500 naming the file, never the generic one.
   */
  @Test
  void randomSpoilingsAlwaysAnswerTheSpecificErrorNamingTheFile() throws Exception {
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    Random random = new Random(seed);
    start(true);
    for (int i = 0; i < 30; i++) {
      String name = "r" + i;
      String file = http.createTable("db", name, Map.of());
      byte[] good = Files.readAllBytes(Path.of(file));
      String how = switch (random.nextInt(3)) {
        case 0 -> "cut";
        case 1 -> "random";
        default -> "empty";
      };
      byte[] bad = switch (how) {
        case "cut" -> Arrays.copyOf(good, random.nextInt(good.length));
        case "random" -> {
          byte[] b = new byte[1 + random.nextInt(4096)];
          random.nextBytes(b);
          yield b;
        }
        default -> new byte[0];
      };
      Files.write(Path.of(file), bad);
      String what = "seed " + seed + ", " + name + " " + how + " (" + bad.length + " bytes)";
      assertSpecific(http.send("GET", NS + "/tables/" + name, null, Map.of()), file, what + " load");
      assertSpecific(http.send("POST", NS + "/tables/" + name, "{\"requirements\":[],\"updates\":[{\"action\":"
          + "\"set-properties\",\"updates\":{\"k\":\"v\"}}]}", Map.of()), file, what + " commit");
      Files.write(Path.of(file), good);
      assertThat(http.send("DELETE", NS + "/tables/" + name, null, Map.of()).statusCode()).isEqualTo(204);
      Files.write(Path.of(file), bad);
      assertSpecific(http.send("POST", API + "/" + name + "/undrop", null, Map.of()), file, what + " undrop");
    }
  }

  private static void assertSpecific(HttpResponse<String> r, String file, String what) throws IOException {
    assertThat(r.statusCode()).as(what + ": " + r.body()).isEqualTo(500);
    assertThat(error(r).get("type").asText()).as(what + ": " + r.body()).isEqualTo("UnreadableMetadataException");
    assertThat(error(r).get("message").asText()).as(what).contains(file);
  }

  static void spoil(Path file, String how) {
    try {
      if (how.equals("empty")) {
        Files.write(file, new byte[0]);
      } else {
        UnreadableMetadataRoutesTest.spoil(file, how);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
