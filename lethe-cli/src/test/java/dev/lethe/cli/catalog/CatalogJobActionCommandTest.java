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
 * {@code lethe catalog jobs retry ID}, {@code run-now ID}, {@code abandon --reason TEXT ID} and
 * {@code rescue ID} against a real server: a purge that
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
    return job("orders");
  }

  private JsonNode job(String name) throws Exception {
    return JSON.readTree(send("GET", "/api/metalakes/default/catalogs/main/cleanups?name=" + name, null, null).body())
        .get("cleanups").get(0);
  }

  /** Creates {@code sales.<name>}, spoils its metadata file, drops it with an async purge and waits until FAILED. */
  private Path failedPurge(String name) throws Exception {
    HttpResponse<String> created = send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"" + name + "\","
        + "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,"
        + "\"type\":\"long\"}]}}", null);
    Path file = Path.of(URI.create(JSON.readTree(created.body()).get("metadata-location").asText()).getPath());
    Files.writeString(file, "not json");
    send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/" + name + "?purgeRequested=true", null, "true");
    await().atMost(Duration.ofSeconds(30)).until(() -> job(name).get("state").asText().equals("FAILED"));
    return file;
  }

  @Test
  void aFailedJobIsAbandonedWithItsReasonAndAnotherRescuedAfterItsFileIsRepaired() throws Exception {
    failedPurge("orders");
    String id = job("orders").get("id").asText();

    assertThat(run("catalog", "jobs", "abandon", id, "--server", url)).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("--reason");
    assertThat(run("catalog", "jobs", "abandon", id, "--reason", "  ", "--server", url)).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("Invalid --reason");
    assertThat(run("catalog", "jobs", "abandon", id, "--reason", "x".repeat(1025), "--server", url)).isEqualTo(2);
    assertThat(job("orders").get("state").asText()).isEqualTo("FAILED");

    assertThat(run("catalog", "jobs", "abandon", id, "--reason", "removed by hand", "--server", url)).isZero();
    assertThat(err.toString()).isEmpty();
    String[] lines = out.toString().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).startsWith("ID").contains("ENDED_BY", "ENDED", "END_REASON");
    assertThat(lines[1]).startsWith(id).contains("orders", "ABANDONED", "anonymous", "removed by hand");
    assertThat(run("catalog", "jobs", "--state", "abandoned", "--server", url)).isZero();
    assertThat(out.toString()).contains("ABANDONED", "removed by hand");
    assertThat(run("catalog", "jobs", "abandon", id, "--reason", "again", "--server", url)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("lethe catalog jobs abandon: Cannot abandon cleanup job " + id
        + ": it is ABANDONED; only a FAILED job can be abandoned\n");

    // a purge that FAILED on its spoiled metadata file deleted nothing: once the file is repaired, the table is rescued
    HttpResponse<String> created = send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"lines\","
        + "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}", null);
    Path file = Path.of(URI.create(JSON.readTree(created.body()).get("metadata-location").asText()).getPath());
    byte[] good = Files.readAllBytes(file);
    Files.writeString(file, "not json");
    send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/lines?purgeRequested=true", null, "true");
    await().atMost(Duration.ofSeconds(30)).until(() -> job("lines").get("state").asText().equals("FAILED"));
    String other = job("lines").get("id").asText();
    assertThat(run("catalog", "jobs", "rescue", other, "--server", url)).isEqualTo(1);
    assertThat(err.toString()).startsWith("lethe catalog jobs rescue: Cannot read the current metadata file of table "
        + "sales.lines");
    assertThat(err.toString().strip()).doesNotContain("\n");
    assertThat(job("lines").get("state").asText()).isEqualTo("FAILED");

    Files.write(file, good);
    assertThat(run("catalog", "jobs", "rescue", other, "--reason", "dropped by mistake", "--server", url)).isZero();
    assertThat(out.toString().split("\n")[1]).startsWith(other).contains("lines", "CANCELLED", "anonymous",
        "dropped by mistake");
    assertThat(send("GET", "/iceberg/v1/main/namespaces/sales/tables/lines", null, null).statusCode()).isEqualTo(200);
    Files.delete(file);
    assertThat(run("catalog", "jobs", "rescue", other, "--server", url)).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("lethe catalog jobs rescue: Cannot rescue cleanup job " + other
        + ": it is CANCELLED; only a PENDING or FAILED job can be rescued\n");
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

  /**
   * Options written before the action belong to the listing: the action would drop them and act on
   * the default server (here none; in production perhaps another one), so it refuses them.
   */
  @Test
  void serverOptionsBeforeTheActionAreRefusedNotDropped() {
    for (String action : new String[] {"retry", "run-now", "rescue"}) {
      assertThat(run("catalog", "jobs", "--server", url, action, "1")).as(action).isEqualTo(2);
      assertThat(err.toString().strip()).as(action).doesNotContain("\n")
          .startsWith("lethe catalog jobs " + action + ": Invalid options before '" + action + "': --server");
    }
    assertThat(run("catalog", "jobs", "--server", url, "--catalog", "main", "abandon", "--reason", "x", "1")).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("--server").contains("--catalog");
  }
}
