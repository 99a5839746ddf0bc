package dev.lethe.server.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client sees when a retained table's files were deleted outside the catalog, and what the
 * server tells clients about their own deletes while soft deletion is on
 * (docs/design/0301-hollow-restore.md, docs/design/0302-client-fileio-overrides.md). Real server,
 * real HTTP, embedded H2, local warehouse.
 */
class HollowRestoreRoutesTest {
  private static final String API = "/api/metalakes/default/catalogs/main/schemas/db/tables";

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  private void start(boolean softDelete) throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDelete),
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
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

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> r = http.send("GET", path, null, Map.of());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return ServerHttp.JSON.readTree(r.body());
  }

  @Test
  void undropOfATableWhoseMetadataFileWasDeletedOutsideTheCatalogIs409AndTheListingSaysWhy() throws Exception {
    start(true);
    String metadata = http.createTable("db", "hollow", Map.of());
    http.createTable("db", "intact", Map.of());
    assertThat(http.send("DELETE", API + "/hollow?purgeRequested=true", null, Map.of()).statusCode()).isEqualTo(204);
    assertThat(http.send("DELETE", API + "/intact?purgeRequested=true", null, Map.of()).statusCode()).isEqualTo(204);

    // what a client-side purge does: the files go, the catalog is not told
    Files.delete(Path.of(metadata.replaceFirst("^file:", "")));

    JsonNode listed = get(API + "?deleted=true").get("deleted");
    assertThat(listed).hasSize(2);
    JsonNode hollow = listed.get(0);
    assertThat(hollow.get("name").asText()).isEqualTo("hollow");
    assertThat(hollow.get("recoverable").asBoolean()).isFalse();
    assertThat(hollow.get("state").asText()).isEqualTo("DELETED");
    assertThat(hollow.get("reason").asText()).contains("deleted outside the catalog").contains("current metadata file");
    assertThat(listed.toString()).as("the listing never carries a location").doesNotContain(metadata)
        .doesNotContain(dir.toString());
    assertThat(listed.get(1).get("recoverable").asBoolean()).isTrue();
    assertThat(listed.get(1).has("reason")).isFalse();
    assertThat(get(API + "/hollow?deleted=true")).isEqualTo(hollow);

    HttpResponse<String> undrop = http.send("POST", API + "/hollow/undrop", null, Map.of());
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(409);
    JsonNode error = ServerHttp.JSON.readTree(undrop.body());
    assertThat(error.get("type").asText()).isEqualTo("TableFilesMissingException");
    assertThat(error.get("message").asText()).startsWith("Cannot undrop db.hollow: ")
        .contains(metadata).contains("deleted outside the catalog");
    // nothing changed: still retained, still invisible to Iceberg clients
    assertThat(get(API + "/hollow?deleted=true").get("entityId")).isEqualTo(hollow.get("entityId"));
    assertThat(http.send("GET", "/iceberg/v1/main/namespaces/db/tables/hollow", null, Map.of()).statusCode())
        .isEqualTo(404);

    HttpResponse<String> intact = http.send("POST", API + "/intact/undrop", null, Map.of());
    assertThat(intact.statusCode()).as(intact.body()).isEqualTo(200);
  }

  @Test
  void whileSoftDeletionIsOnClientsAreToldThatS3DeletesAreDisabled() throws Exception {
    start(true);
    http.createTable("db", "t", Map.of());
    assertThat(get("/iceberg/v1/config?warehouse=main").get("overrides").get("s3.delete-enabled").asText())
        .isEqualTo("false");
    assertThat(get("/iceberg/v1/main/namespaces/db/tables/t").get("config").get("s3.delete-enabled").asText())
        .isEqualTo("false");
  }

  @Test
  void withSoftDeletionOffClientsKeepTheirOwnDeleteSetting() throws Exception {
    start(false);
    http.createTable("db", "t", Map.of());
    assertThat(get("/iceberg/v1/config?warehouse=main").get("overrides").has("s3.delete-enabled")).isFalse();
    JsonNode table = get("/iceberg/v1/main/namespaces/db/tables/t");
    assertThat(table.has("config") && table.get("config").has("s3.delete-enabled")).isFalse();
  }
}
