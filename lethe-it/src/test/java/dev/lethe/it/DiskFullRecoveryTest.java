package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server whose data directory (embedded H2, file store, warehouse) sits on a 3 MiB tmpfs
 * that fills up (docs/design/0430-health-that-tells-the-truth.md): while it is full {@code /readyz}
 * is 503 naming the failed checks and catalog calls are 503 "catalog database unavailable: …" with
 * {@code Retry-After}, never a generic 500; once the space is freed the same process answers 200
 * again, its data intact, without a restart.
 *
 * <p>Needs {@code mount -t tmpfs} (root); skipped with a message where it is not permitted.
 */
class DiskFullRecoveryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir Path dir;
  Path mount;
  boolean mounted;
  LetheProcess server;

  @BeforeEach
  void mountSmallTmpfs() throws Exception {
    mount = Files.createDirectories(dir.resolve("small"));
    Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mount.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    mounted = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    assumeTrue(mounted, "mounting a 3 MiB tmpfs is not permitted here (needs root): " + out.strip());
  }

  @AfterEach
  void unmount() throws Exception {
    if (server != null) {
      server.close();
    }
    if (mounted) {
      new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFullDiskIs503NamingTheCauseAndFreeingItRecoversWithoutARestart() throws Exception {
    Path data = mount.resolve("data");
    server = LetheProcess.start(freePort(), data, dir.resolve("server.log"), List.of(), Map.of());
    long pid = server.pid().pid();
    await().atMost(Duration.ofSeconds(20)).until(() -> get("/readyz").statusCode() == 200);
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"before\"]}").statusCode()).isEqualTo(200);

    Path filler = mount.resolve("filler");
    fill(filler);

    HttpResponse<String> notReady = get("/readyz");
    assertThat(notReady.statusCode()).as(notReady.body()).isEqualTo(503);
    assertThat(notReady.headers().firstValue("Retry-After")).isPresent();
    JsonNode checks = JSON.readTree(notReady.body()).get("checks");
    assertThat(checks.get("catalog-database").get("status").asText()).isEqualTo("failed");
    assertThat(checks.get("catalog-database").get("message").asText())
        .startsWith("catalog database unavailable: ").contains("No space left on device");
    assertThat(checks.get("warehouse").get("status").asText()).isEqualTo("failed");
    assertThat(notReady.body()).doesNotContain(dir.toString());

    // a write meets the full disk: H2 closes its database; then every catalog call is 503 naming the cause
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      HttpResponse<String> write = send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"during\"]}");
      assertUnavailable(write);
      assertUnavailable(get("/iceberg/v1/main/namespaces"));
    });
    assertThat(get("/healthz").statusCode()).isEqualTo(200); // liveness: the process is up

    Files.delete(filler);

    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
        .untilAsserted(() -> assertThat(get("/readyz").statusCode()).isEqualTo(200));
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> assertThat(
        send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"after\"]}").statusCode()).isIn(200, 409));
    HttpResponse<String> list = get("/iceberg/v1/main/namespaces");
    assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
    assertThat(list.body()).contains("\"before\"").contains("\"after\"");
    assertThat(server.pid().pid()).isEqualTo(pid);
    assertThat(server.pid().isAlive()).isTrue();
  }

  private static void assertUnavailable(HttpResponse<String> r) throws IOException {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
    assertThat(r.headers().firstValue("Retry-After")).isPresent();
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("ServiceUnavailableException");
    assertThat(error.get("message").asText()).startsWith("catalog database unavailable: ");
  }

  /** Writes zeros to {@code filler} until the file system refuses a byte more. */
  private static void fill(Path filler) {
    byte[] block = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
      }
    } catch (IOException full) {
      assertThat(full.getMessage()).contains("No space left on device");
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send("GET", path, null);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
