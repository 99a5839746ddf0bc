package dev.lethe.server.management;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests under {@code /api/} that no management route answers (wrong method, unknown path, body
 * too large) get the management error shape {@code {code, type, message}}, not Iceberg's {@code
 * {"error": {…}}}; the Iceberg routes keep theirs.
 */
class ManagementFallbackErrorsTest {
  private static final String TABLES = "/api/metalakes/default/catalogs/main/schemas/db/tables";

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  @BeforeEach
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null, 1024, null,
        Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true", ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    http = new ServerHttp(server);
    http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of());
    http.createTable("db", "t", Map.of());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static void assertManagementError(HttpResponse<String> r, int code, String messagePart) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(code);
    JsonNode body = ServerHttp.JSON.readTree(r.body());
    List<String> fields = new ArrayList<>();
    body.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("code", "type", "message");
    assertThat(body.get("code").asInt()).isEqualTo(code);
    assertThat(body.get("message").asText()).contains(messagePart);
  }

  @Test
  void unmatchedManagementRequestsAnswerInTheManagementShape() throws Exception {
    assertManagementError(http.send("GET", TABLES + "/t/undrop", null, Map.of()), 404, "GET " + TABLES + "/t/undrop");
    assertManagementError(http.send("PUT", TABLES + "/t", null, Map.of()), 404, "PUT");
    assertManagementError(http.send("POST", TABLES + "?deleted=true", null, Map.of()), 404, "POST");
    assertManagementError(http.send("POST", "/api/metalakes/default/catalogs/main/cleanups", null, Map.of()), 404, "cleanups");
    assertManagementError(http.send("GET", "/api/metalakes/default/catalogs/main/nothing", null, Map.of()), 404, "nothing");
    assertManagementError(http.send("POST", TABLES + "/t/undrop", "x".repeat(2000), Map.of()), 413, "limit is 1024 bytes");
    assertThat(http.send("HEAD", "/iceberg/v1/main/namespaces/db/tables/t", null, Map.of()).statusCode())
        .as("nothing changed").isEqualTo(204);
  }

  @Test
  void icebergRoutesKeepTheIcebergShape() throws Exception {
    HttpResponse<String> r = http.send("PATCH", "/iceberg/v1/main/namespaces", null, Map.of());
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(ServerHttp.JSON.readTree(r.body()).get("error").get("code").asInt()).isEqualTo(404);
  }
}
