package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A scan or commit report ({@code POST …/tables/{table}/metrics}) changes nothing, so it needs what
 * a read needs (docs/auth.md "Decisions and status codes"): iceberg-java, configured as the README
 * says with a reader's token, scans a table and its report is accepted; the route still refuses a
 * token with no grant on the catalog, and the reader still cannot write.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScanReportGrantTest {
  @TempDir static Path dir;
  LetheServer server;
  ServerHttp http;

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token") + "\n    read: [main]\n"
        + "  - name: stranger\n    token-sha256: " + ContentHash.ofUtf8("stranger-token") + "\n    read: [other]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    http = new ServerHttp(server);
    Map<String, String> admin = Map.of("Authorization", "Bearer admin-token");
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"ns\"]}", admin).statusCode()).isEqualTo(200);
    http.createTable("ns", "t", admin);
    // the writer's commit report would arrive from iceberg-java's own thread at any time (or never, if
    // the client closes first) and race the counters the tests read: the writer does not report
    try (RESTCatalog writer = client("admin-token", Map.of("rest-metrics-reporting-enabled", "false"))) {
      Table t = writer.loadTable(TableIdentifier.of("ns", "t"));
      DataFile file = DataFiles.builder(t.spec()).withPath(t.location() + "/data/f.parquet")
          .withFileSizeInBytes(100).withRecordCount(1).build();
      t.newAppend().appendFile(file).commit();
    }
  }

  @AfterAll
  void stop() {
    server.close();
  }

  RESTCatalog client(String token) {
    return client(token, Map.of());
  }

  RESTCatalog client(String token, Map<String, String> extra) {
    Map<String, String> props = new java.util.HashMap<>(Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg",
        "warehouse", "main", "io-impl", "dev.lethe.catalog.io.LocalFileIO",
        "rest.auth.type", "none", "header.Authorization", "Bearer " + token));
    props.putAll(extra);
    RESTCatalog c = new RESTCatalog();
    c.initialize("lethe", props);
    return c;
  }

  /** {@code lethe_iceberg_reports_total{report=…}} on {@code /metrics}, 0 before the first. */
  double reports(String type) throws Exception {
    HttpResponse<String> r = http.send("GET", "/metrics", null, Map.of("Authorization", "Bearer admin-token"));
    return r.body().lines().filter(l -> l.startsWith("lethe_iceberg_reports_total{") && l.contains("report=\"" + type + "\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  @Test
  void aReadersScanReportIsAcceptedAndLogsNoRefusal() throws Exception {
    Logger reporter = (Logger) LoggerFactory.getLogger("org.apache.iceberg.rest.RESTMetricsReporter");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    reporter.addAppender(lines);
    Level level = reporter.getLevel();
    reporter.setLevel(Level.DEBUG);
    try (RESTCatalog reader = client("reader-token")) {
      Table t = reader.loadTable(TableIdentifier.of("ns", "t"));
      int tasks = 0;
      try (CloseableIterable<FileScanTask> scan = t.newScan().planFiles()) {
        for (FileScanTask ignored : scan) {
          tasks++;
        }
      }
      assertThat(tasks).isEqualTo(1);
      // iceberg-java 1.12 posts the report from its own thread: wait until the server counts it or the client logs a refusal
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> reports("scan") == 1 || !lines.list.isEmpty());
    } finally {
      reporter.detachAppender(lines);
      reporter.setLevel(level);
    }
    assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    assertThat(reports("scan")).isEqualTo(1);
  }

  @Test
  void theReportRouteNeedsAReadGrantAndTheReaderStillCannotWrite() throws Exception {
    String metrics = "/iceberg/v1/main/namespaces/ns/tables/t/metrics";
    String report = "{\"report-type\":\"commit-report\",\"table-name\":\"lethe.ns.t\",\"snapshot-id\":1,"
        + "\"sequence-number\":1,\"operation\":\"append\",\"metrics\":{}}";
    double before = reports("commit");
    assertThat(http.send("POST", metrics, report, Map.of("Authorization", "Bearer reader-token")).statusCode()).isEqualTo(204);
    assertThat(reports("commit")).isEqualTo(before + 1);
    assertThat(http.send("POST", metrics, report, Map.of("Authorization", "Bearer stranger-token")).statusCode()).isEqualTo(403);
    assertThat(http.send("POST", metrics, report, Map.of()).statusCode()).isEqualTo(401);
    HttpResponse<String> commit = http.send("POST", "/iceberg/v1/main/namespaces/ns/tables/t",
        "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]}",
        Map.of("Authorization", "Bearer reader-token"));
    assertThat(commit.statusCode()).as(commit.body()).isEqualTo(403);
    assertThat(reports("commit")).isEqualTo(before + 1);
  }
}
