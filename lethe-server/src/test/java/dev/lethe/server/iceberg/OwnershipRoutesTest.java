package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 2 of issue 9, "one live owner", over real HTTP on a real server (embedded H2, local
 * warehouse; docs/design/0001-purge-confinement-and-ownership.md §3): a second entry on a location
 * another entry holds is a 409 naming the holder, on the Iceberg routes ({@code ErrorResponse}) and
 * the management routes ({@code {code, type, message}}), and changes nothing.
 */
class OwnershipRoutesTest {
  private static final String NS = "/iceberg/v1/main/namespaces/db";
  private static final String API = "/api/metalakes/default/catalogs/main/schemas/db/tables";

  @TempDir Path dir;
  private LetheServer server;
  private ServerConfig config;
  private ServerHttp http;

  private void start(Map<String, String> extra) throws Exception {
    Map<String, String> props = new HashMap<>(extra);
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0"); // jobs stay PENDING
    config = new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null, ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props);
    server = LetheServer.start(config);
    http = new ServerHttp(server);
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}").statusCode()).isEqualTo(200);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return http.send(method, path, body, Map.of());
  }

  private HttpResponse<String> register(String name, String metadataLocation) throws Exception {
    return send("POST", NS + "/register", "{\"name\":\"" + name + "\",\"metadata-location\":"
        + ServerHttp.JSON.writeValueAsString(metadataLocation) + "}");
  }

  private static String icebergError(HttpResponse<String> r, int code) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(code);
    JsonNode error = ServerHttp.JSON.readTree(r.body()).get("error");
    assertThat(error.get("code").asInt()).isEqualTo(code);
    assertThat(error.get("type").asText()).isEqualTo("AlreadyExistsException");
    return error.get("message").asText();
  }

  private static List<String> spellings(String path) {
    int second = path.indexOf('/', 1);
    return List.of(path, "file:" + path, "file://" + path, "file://localhost" + path,
        path.substring(0, second) + "/" + path.substring(second), "file://localhost" + path.replace("/metadata/", "//metadata//"));
  }

  @Test
  void registeringALiveTablesMetadataUnderAnotherNameIs409OnEverySpelling() throws Exception {
    start(Map.of());
    String metadata = http.createTable("db", "orig", Map.of());
    for (String spelling : spellings(metadata)) {
      String message = icebergError(register("copy", spelling), 409);
      assertThat(message).as(spelling).startsWith("Cannot register db.copy").contains("held by live table db.orig");
      assertThat(send("GET", NS + "/tables/copy", null).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aPendingAsyncPurgeJobHoldsTheLocationAndIsNamed() throws Exception {
    start(Map.of());
    String metadata = http.createTable("db", "orig", Map.of());
    HttpResponse<String> drop = http.send("DELETE", NS + "/tables/orig?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true"));
    assertThat(drop.statusCode()).isEqualTo(204);
    JsonNode job = ServerHttp.JSON.readTree(send("GET", "/api/metalakes/default/catalogs/main/cleanups", null).body())
        .get("cleanups").get(0);
    assertThat(job.get("state").asText()).isEqualTo("PENDING");

    String message = icebergError(register("copy", "file:" + metadata), 409);
    assertThat(message).contains("cleanup job " + job.get("id").asLong() + " (PENDING) purging the dropped table db.orig");
    assertThat(send("GET", NS + "/tables/copy", null).statusCode()).isEqualTo(404);
  }

  @Test
  void withSoftDeletionARetainedTableHoldsItsLocationAndUndropIsRefusedWhenAnotherEntryOverlaps() throws Exception {
    start(Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true"));
    String metadata = http.createTable("db", "x", Map.of());
    assertThat(send("DELETE", NS + "/tables/x?purgeRequested=true", null).statusCode()).isEqualTo(204);

    String message = icebergError(register("y", metadata), 409);
    assertThat(message).contains("the dropped table db.x, retained by deletion");

    // an overlapping live entry written behind the guard's back (a row and its claim), to reach the undrop check
    try (Connection c = DriverManager.getConnection(config.effectiveJdbcUrl()); Statement s = c.createStatement()) {
      s.execute("INSERT INTO lethe_table (table_id, catalog_id, namespace_id, name, metadata_location, "
          + "previous_metadata_location, deleted_at, deletion_id, created_at, updated_at) SELECT 'z-id', catalog_id, "
          + "namespace_id, 'z', metadata_location, NULL, 0, NULL, 1, 1 FROM lethe_table WHERE name = 'x'");
      s.execute("INSERT INTO lethe_location_claim (owner_kind, owner_id, root, root_hash, created_at) SELECT 'TABLE', "
          + "'z-id', root, root_hash, 1 FROM lethe_location_claim");
      s.execute("INSERT INTO lethe_location_claim_prefix (prefix_hash, claim_id) SELECT p.prefix_hash, z.claim_id "
          + "FROM lethe_location_claim_prefix p JOIN lethe_location_claim x ON x.claim_id = p.claim_id AND x.owner_id <> 'z-id' "
          + "JOIN lethe_location_claim z ON z.owner_id = 'z-id'");
    }
    HttpResponse<String> undrop = send("POST", API + "/x/undrop", null);
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(409);
    JsonNode body = ServerHttp.JSON.readTree(undrop.body());
    assertThat(body.get("code").asInt()).isEqualTo(409);
    assertThat(body.get("type").asText()).isEqualTo("AlreadyExistsException");
    assertThat(body.get("message").asText()).startsWith("Cannot undrop db.x").contains("held by live table db.z");
    assertThat(send("GET", NS + "/tables/x", null).statusCode()).isEqualTo(404);
    JsonNode deleted = ServerHttp.JSON.readTree(send("GET", API + "/x?deleted=true", null).body());
    assertThat(deleted.get("state").asText()).isEqualTo("DELETED");

    // purge-now (admin) hands the location to a job: refused the same way while db.z overlaps it
    HttpResponse<String> purgeNow = send("POST", API + "/x/purge", null);
    assertThat(purgeNow.statusCode()).as(purgeNow.body()).isEqualTo(409);
    assertThat(ServerHttp.JSON.readTree(purgeNow.body()).get("message").asText()).contains("db.z");
  }
}
