package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /readyz} over real HTTP with auth on (docs/design/0430-health-that-tells-the-truth.md):
 * answered without a token, names every check, and is 503 naming the failed check, without its
 * path, while the warehouse cannot be written; 200 again once it can.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadinessRoutesTest {
  @TempDir static Path dir;
  LetheServer server;
  ServerHttp http;

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token")
        + "\n    read: [\"*\"]\n    write: [\"*\"]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1")));
    http = new ServerHttp(server);
  }

  @AfterAll
  void stop() {
    server.close();
  }

  @Test
  void readyzNeedsNoTokenAndNamesEveryCheck() throws Exception {
    HttpResponse<String> r = http.send("GET", "/readyz", null, Map.of());

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = ServerHttp.JSON.readTree(r.body());
    assertThat(body.get("status").asText()).isEqualTo("ready");
    assertThat(List.of(body.get("checks").fieldNames().next())).containsExactly("catalog-database");
    for (String check : List.of("catalog-database", "store", "warehouse", "purge-workers")) {
      assertThat(body.get("checks").get(check).get("status").asText()).as(check).isEqualTo("ok");
    }
    assertThat(http.send("HEAD", "/readyz", null, Map.of()).statusCode()).isEqualTo(200);
  }

  @Test
  void aWarehouseThatCannotBeWrittenIs503NamingTheCheckButNotThePath() throws Exception {
    Path warehouse = dir.resolve("data").resolve("warehouse");
    Path aside = dir.resolve("warehouse-aside");
    Files.move(warehouse, aside);
    Files.writeString(warehouse, "a file where the warehouse directory was");
    try {
      HttpResponse<String> r = http.send("GET", "/readyz", null, Map.of());

      assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).isPresent();
      JsonNode body = ServerHttp.JSON.readTree(r.body());
      assertThat(body.get("status").asText()).isEqualTo("not ready");
      JsonNode check = body.get("checks").get("warehouse");
      assertThat(check.get("status").asText()).isEqualTo("failed");
      assertThat(check.get("message").asText()).isEqualTo("Cannot write the warehouse directory <path>: exists and is not a directory");
      assertThat(body.get("checks").get("catalog-database").get("status").asText()).isEqualTo("ok");
    } finally {
      Files.delete(warehouse);
      Files.move(aside, warehouse);
    }
    assertThat(http.send("GET", "/readyz", null, Map.of()).statusCode()).isEqualTo(200);
  }
}
