package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} of a real server (docs/design/0433-observability.md): the JVM, HTTP, connection
 * pool, soft-delete, purge and store families are there, and every {@code lethe_} meter says what it
 * measures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsFamiliesTest {
  @TempDir static Path dir;
  LetheServer server;
  ServerHttp http;

  @BeforeAll
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    http = new ServerHttp(server);
    // one catalog request, one store request, one 404: the request meters have something to count
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"ns\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    assertThat(http.send("GET", "/store/v1/records", null, Map.of()).statusCode()).isEqualTo(200);
    assertThat(http.send("GET", "/no/such/route", null, Map.of()).statusCode()).isEqualTo(404);
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private String scrape() throws Exception {
    HttpResponse<String> r = http.send("GET", "/metrics", null, Map.of());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void jvmHttpAndPoolFamiliesAreScraped() throws Exception {
    String body = scrape();
    assertThat(body).contains("jvm_memory_used_bytes", "jvm_gc_", "jvm_threads_live_threads",
        "jvm_classes_loaded_classes", "process_cpu_usage", "process_uptime_seconds", "system_cpu_count");
    assertThat(body).contains("jetty_server_requests_seconds_count", "jetty_connections_", "jetty_threads_");
    assertThat(body).contains("hikaricp_connections_active{pool=\"lethe-catalog\"}", "hikaricp_connections_acquire_seconds");
  }
}
