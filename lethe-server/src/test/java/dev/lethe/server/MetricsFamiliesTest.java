package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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
    // a create, the same create again (409), and the record sent back as a raw batch (one sync batch)
    String put = "{\"body\":{\"text\":\"v\"}}";
    assertThat(http.send("PUT", "/store/v1/records/team/c/k", put, Map.of("If-None-Match", "*")).statusCode()).isEqualTo(201);
    assertThat(http.send("PUT", "/store/v1/records/team/c/k", put, Map.of("If-None-Match", "*")).statusCode()).isEqualTo(409);
    String raw = http.send("GET", "/store/v1/raw/records/team/c/k", null, Map.of()).body();
    assertThat(http.send("POST", "/store/v1/raw/batch/team", "[{\"record\":" + raw + "}]", Map.of()).statusCode())
        .isEqualTo(200);
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

  @Test
  void letheFamiliesAreScraped() throws Exception {
    String body = scrape();
    assertThat(body).contains("lethe_softdelete_retained 0.0", "lethe_softdelete_expiring 0.0", "lethe_softdelete_expired 0.0",
        "lethe_softdelete_held 0.0");
    assertThat(body).contains("lethe_purge_jobs_pending 0.0", "lethe_purge_completed_total 0.0");
    assertThat(body).contains(
        "lethe_store_requests_total{method=\"PUT\",outcome=\"ok\",route=\"/store/v1/records/{ns}/{col}/{id}\"} 1.0",
        "lethe_store_requests_total{method=\"PUT\",outcome=\"conflict\",route=\"/store/v1/records/{ns}/{col}/{id}\"} 1.0",
        "lethe_store_conflicts_total{route=\"/store/v1/records/{ns}/{col}/{id}\"} 1.0",
        "lethe_store_sync_batches_total 1.0", "lethe_store_sync_batch_items_sum 1.0");
    // /metrics itself and the unmatched 404 are Jetty's to count, not the store's
    assertThat(body).doesNotContain("route=\"unmatched\"");
  }

  @Test
  void everyLetheMeterHasHelpText() throws Exception {
    List<String> help = Arrays.stream(scrape().split("\n")).filter(l -> l.startsWith("# HELP lethe_")).toList();
    assertThat(help).isNotEmpty();
    for (String line : help) {
      String[] parts = line.split(" ", 4);
      assertThat(parts.length == 4 && !parts[3].isBlank()).as("HELP text of %s", line).isTrue();
    }
  }
}
