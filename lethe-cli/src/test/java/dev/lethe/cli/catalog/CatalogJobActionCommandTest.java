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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lethe catalog jobs retry ID} and {@code run-now ID} against a real server: a purge that
 * FAILED on a spoiled metadata file is retried (exit 0, the job printed PENDING), repaired, and
 * SUCCEEDED; refusals exit 1 and bad input exits 2, each with one stderr line.
 */
class CatalogJobActionCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;
  private LetheServer server;
  private String url;
  private StringWriter out;
  private StringWriter err;

  @BeforeEach
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of("lethe.iceberg-rest.async-purge.worker-threads", "1",
            "lethe.iceberg-rest.async-purge.max-attempts", "1")));
    url = "http://127.0.0.1:" + server.port();
    send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}", null);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> send(String method, String path, String body, String async) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (async != null) {
      b.header("X-Lethe-Async-Purge", async);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  private JsonNode job() throws Exception {
    return JSON.readTree(send("GET", "/api/metalakes/default/catalogs/main/cleanups?name=orders", null, null).body())
        .get("cleanups").get(0);
  }

  @Test
  void aFailedJobIsRetriedRepairedAndSucceedsAndRefusalsExitOneWithOneLine() throws Exception {
    HttpResponse<String> created = send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"orders\","
        + "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,"
        + "\"type\":\"long\"}]}}", null);
    Path file = Path.of(URI.create(JSON.readTree(created.body()).get("metadata-location").asText()).getPath());
    byte[] good = Files.readAllBytes(file);
    Files.writeString(file, "not json");
    send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/orders?purgeRequested=true", null, "true");
    await().atMost(Duration.ofSeconds(30)).until(() -> job().get("state").asText().equals("FAILED"));
    String id = job().get("id").asText();

    assertThat(run("catalog", "jobs", "run-now", id, "--server", url, "--catalog", "main")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("lethe catalog jobs run-now: Cannot run-now cleanup job " + id
        + ": it is FAILED; only a PENDING job can be run now\n");

    Files.write(file, good);
    assertThat(run("catalog", "jobs", "retry", id, "--server", url)).isZero();
    assertThat(err.toString()).isEmpty();
    String[] lines = out.toString().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).startsWith("ID");
    assertThat(lines[1]).startsWith(id).contains("orders", "PENDING");
    await().atMost(Duration.ofSeconds(30)).until(() -> job().get("state").asText().equals("SUCCEEDED"));

    assertThat(run("catalog", "jobs", "retry", id, "--server", url)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("lethe catalog jobs retry: Cannot retry cleanup job " + id
        + ": it is SUCCEEDED; only a FAILED job can be retried\n");
    assertThat(run("catalog", "jobs", "retry", "9999", "--server", url)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("lethe catalog jobs retry: Cleanup job does not exist in catalog main: 9999\n");
  }

  @Test
  void badInputExitsTwoWithOneStderrLineAndSendsNothing() {
    for (String bad : new String[] {"abc", "0", "-3"}) {
      assertThat(run("catalog", "jobs", "retry", bad, "--server", url)).as(bad).isEqualTo(2);
      assertThat(err.toString().strip()).as(bad).doesNotContain("\n").contains(bad);
    }
    assertThat(run("catalog", "jobs", "run-now", "--server", url)).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("ID");
    assertThat(run("catalog", "jobs", "retry", "1", "--server", url, "--catalog", "a/b")).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n");
  }
}
