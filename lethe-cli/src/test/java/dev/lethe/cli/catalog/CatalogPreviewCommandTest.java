package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code lethe catalog preview} against a real server in process (embedded H2): a live table, the
 * same table soft-deleted, an unknown table (exit 1), a bad name (exit 2 before any request).
 */
class CatalogPreviewCommandTest {
  private static final String TABLE_BODY = "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";

  @TempDir Path dir;
  private LetheServer server;
  private StringWriter out;
  private StringWriter err;

  @BeforeEach
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true",
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}").statusCode()).isEqualTo(200);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @Test
  void previewsALiveAndASoftDeletedTableAndExitsAsTheOtherCatalogCommands() throws Exception {
    assertThat(send("POST", "/iceberg/v1/main/namespaces/sales/tables", String.format(TABLE_BODY, "orders"))
        .statusCode()).isEqualTo(200);
    assertThat(run("catalog", "preview", "--catalog", "main", "sales", "orders", "--server", base()))
        .as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("table: main.sales.orders (LIVE)").contains("roots: ")
        .contains("currentMetadataFile").contains("would keep: 0");
    // one metadata file, its size in bytes from the listing
    assertThat(out.toString().lines().filter(l -> l.startsWith("currentMetadataFile")).findFirst().orElseThrow())
        .matches("currentMetadataFile\\s+1\\s+[1-9][0-9]*");
    assertThat(out.toString()).contains("BYTES");

    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/orders?purgeRequested=true", null)
        .statusCode()).isEqualTo(204);
    assertThat(run("catalog", "preview", "sales", "orders", "--server", base(), "--json")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("\"state\":\"DELETED\"");

    assertThat(run("catalog", "preview", "sales", "nope", "--server", base())).isEqualTo(1);
    assertThat(err.toString()).startsWith("lethe catalog preview: ").contains("nope");
    assertThat(run("catalog", "preview", "sales", "a/b", "--server", "http://127.0.0.1:1")).isEqualTo(2);
  }
}
