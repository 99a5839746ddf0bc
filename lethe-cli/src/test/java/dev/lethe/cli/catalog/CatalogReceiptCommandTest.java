package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code lethe catalog receipt ID} against a real server (docs/design/0445-job-progress-and-receipts.md). */
class CatalogReceiptCommandTest {
  private static final String CLEANUPS = "/api/metalakes/default/catalogs/main/cleanups";

  @TempDir Path dir;
  private LetheServer server;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private long id;

  @BeforeEach
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of("lethe.iceberg-rest.async-purge.worker-threads", "1")));
    send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}", null);
    send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"orders\",\"schema\":{\"type\":\"struct\","
        + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}", null);
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/orders?purgeRequested=true", null, "true")
        .statusCode()).isEqualTo(204);
    id = json(send("GET", CLEANUPS, null, null)).get("cleanups").get(0).get("id").asLong();
    await().atMost(Duration.ofSeconds(30)).until(() ->
        json(send("GET", CLEANUPS + "/" + id, null, null)).get("state").asText().equals("SUCCEEDED"));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return new ObjectMapper().readTree(r.body());
  }

  private HttpResponse<String> send(String method, String path, String body, String async) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (async != null) {
      b.header("X-Lethe-Async-Purge", async);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private int run(String... args) {
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @Test
  void receiptPrintsWhoHowWhenAndWhatPerKind() {
    int code = run("catalog", "receipt", "--server", "http://127.0.0.1:" + server.port(), Long.toString(id));

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("job " + id, "TABLE sales.orders SUCCEEDED", "asked by anonymous via ASYNC",
            "deleted 1 files, at least ", "METADATA_FILES", "left over 0 files")
        .contains("KIND", "FILES", "BYTES", "UNKNOWN_SIZES");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void receiptOfAJobAnOperatorEndedSaysWhoAndWhy() throws Exception {
    StringWriter printed = new StringWriter();
    PrintWriter w = new PrintWriter(printed);
    CatalogReceiptCommand.print(w, new ObjectMapper().readTree("{\"jobId\":7,\"receiptId\":3,\"objectType\":\"TABLE\","
        + "\"namespace\":[\"sales\"],\"name\":\"orders\",\"state\":\"ABANDONED\",\"endedBy\":\"root\","
        + "\"endReason\":\"removed by\\nhand\"}"));
    w.flush();
    assertThat(printed.toString()).contains("TABLE sales.orders ABANDONED").contains("ended by root: removed by hand");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aJobWithoutReceiptIsExit1AndABadIdExit2WithOneLineOnStderr() {
    int code = run("catalog", "receipt", "--server", "http://127.0.0.1:" + server.port(), Long.toString(id + 1000));
    assertThat(code).isEqualTo(1);
    assertThat(err.toString().trim().split("\n")).hasSize(1);
    assertThat(err.toString()).startsWith("lethe catalog receipt: ").contains("no receipt");
    assertThat(out.toString()).isEmpty();

    StringWriter err2 = new StringWriter();
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(new StringWriter()));
    cli.setErr(new PrintWriter(err2));
    assertThat(cli.execute("catalog", "receipt", "--server", "http://127.0.0.1:" + server.port(), "0")).isEqualTo(2);
  }
}
