package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CatalogJobsCommandTest {
  @TempDir Path dir;
  private LetheServer server;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of("lethe.iceberg-rest.async-purge.worker-threads", "0")));
    send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}", null);
    send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"orders\",\"schema\":{\"type\":\"struct\","
        + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}", null);
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/orders?purgeRequested=true", null, "true").statusCode())
        .isEqualTo(204);
  }

  @AfterEach
  void stop() {
    server.close();
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
  void jobsPrintsTheCleanupJobsAsATable() {
    int code = run("catalog", "jobs", "--server", "http://127.0.0.1:" + server.port());

    assertThat(code).isZero();
    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).startsWith("ID").contains("TYPE", "NAMESPACE", "NAME", "STATE", "ATTEMPTS", "CREATED_BY", "LAST_ERROR",
        "PHASE", "FILES", "BYTES", "OWNER", "LEASE_AGE_MS", "STALE");
    assertThat(lines).hasSize(2);
    assertThat(lines[1]).contains("TABLE", "sales", "orders", "PENDING", "anonymous");
  }

  @Test
  void filtersAreSentToTheServer() {
    assertThat(run("catalog", "jobs", "--server", "http://127.0.0.1:" + server.port(), "--state", "succeeded")).isZero();
    assertThat(out.toString().split("\n")).hasSize(1);
  }

  @Test
  void aLimitPrintsOnePageAndTheTokenThatContinuesTheWalk() throws Exception {
    for (String table : new String[] {"a", "b"}) {
      send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"" + table + "\",\"schema\":{\"type\":\"struct\","
          + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}", null);
      assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/" + table + "?purgeRequested=true", null, "true")
          .statusCode()).isEqualTo(204);
    }
    String url = "http://127.0.0.1:" + server.port();

    assertThat(run("catalog", "jobs", "--server", url, "--limit", "2")).isZero();
    String[] first = out.toString().split("\n");
    assertThat(first).hasSize(3);
    assertThat(first[1]).contains(" b ");
    assertThat(first[2]).contains(" a ");
    String hint = err.toString().strip();
    assertThat(hint).startsWith("lethe catalog jobs: more jobs: run again with --page-token ").doesNotContain("\n");
    String token = hint.substring(hint.lastIndexOf(' ') + 1);

    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    assertThat(run("catalog", "jobs", "--server", url, "--limit", "2", "--page-token", token)).isZero();
    String[] second = out.toString().split("\n");
    assertThat(second).hasSize(2);
    assertThat(second[1]).contains("orders");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void aBadLimitOrPageTokenIsExit2WithOneLineOnStderr() {
    String url = "http://127.0.0.1:" + server.port();
    assertThat(run("catalog", "jobs", "--server", url, "--limit", "0")).isEqualTo(2);
    assertThat(err.toString().strip()).startsWith("lethe catalog jobs: ").doesNotContain("\n");
    err.getBuffer().setLength(0);
    assertThat(run("catalog", "jobs", "--server", url, "--page-token", "not a token")).isEqualTo(2);
    assertThat(err.toString().strip()).startsWith("lethe catalog jobs: ").doesNotContain("\n");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aBadStateIsExit2WithOneLineOnStderr() {
    int code = run("catalog", "jobs", "--server", "http://127.0.0.1:" + server.port(), "--state", "done");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString().strip()).startsWith("lethe catalog jobs: Invalid state: done").doesNotContain("\n");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void anUnreachableServerIsExit1() {
    assertThat(run("catalog", "jobs", "--server", "http://127.0.0.1:1")).isEqualTo(1);
    assertThat(err.toString()).contains("cannot reach");
  }
}
