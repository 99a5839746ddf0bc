package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code lethe server} logs as a process (docs/design/0433-observability.md): the start-up summary,
 * the request log with the principal's name and never the token or the query, the stop line on
 * SIGTERM, and {@code lethe.log.format=json} making every line one JSON object.
 */
class LogFormatProcessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "s3cret-admin-token";

  @Test
  void jsonLogCarriesTheSummaryEveryRequestAndTheStopAndNoSecret() throws Exception {
    Path work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it")));
    Path auth = Files.createTempFile(work, "auth-", ".yaml");
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(TOKEN.getBytes(StandardCharsets.UTF_8)));
    Files.writeString(auth, "principals:\n  - name: admin\n    token-sha256: " + sha + "\n    read: [\"*\"]\n    write: [\"*\"]\n");
    ServerFixture server = ServerFixture.start("jsonlog", Map.of("LETHE_LOG_FORMAT", "json", "LETHE_LOG_REQUESTS", "true",
        "LETHE_AUTH_FILE", auth.toString()));
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + server.process.port();
    HttpResponse<String> config = http.send(HttpRequest.newBuilder(URI.create(base + "/iceberg/v1/config?warehouse=main"))
        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(config.statusCode()).isEqualTo(200);
    HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "/store/v1/records?pageToken=qsecret"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(401);

    assertThat(server.process.stop()).isZero();

    String log = server.process.log();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : log.split("\n")) {
      if (!line.isBlank()) {
        lines.add(JSON.readTree(line)); // every line is one JSON object
      }
    }
    assertThat(log).doesNotContain(TOKEN).doesNotContain("qsecret");
    assertThat(messages(lines)).anySatisfy(m -> assertThat(m).startsWith("Lethe started: database=jdbc:h2:")
        .contains(" warehouse=" + server.dataDir.resolve("warehouse"), " soft-delete=off", " auth=on (" + auth + ")",
            " store=file:" + server.dataDir.resolve("store"), " port=" + server.process.port()));
    assertThat(messages(lines)).anySatisfy(m -> assertThat(m).startsWith("Lethe stopped in "));
    JsonNode ok = requestLine(lines, "/iceberg/v1/config");
    assertThat(ok.get("formattedMessage").asText()).startsWith("GET /iceberg/v1/config 200 ");
    assertThat(kvp(ok)).containsEntry("method", "GET").containsEntry("status", "200").containsEntry("principal", "admin");
    assertThat(Long.parseLong(kvp(ok).get("bytes"))).isPositive();
    assertThat(kvp(requestLine(lines, "/store/v1/records"))).containsEntry("status", "401").containsEntry("principal", "anonymous");
  }

  private static List<String> messages(List<JsonNode> lines) {
    return lines.stream().map(l -> l.path("formattedMessage").asText()).toList();
  }

  private static JsonNode requestLine(List<JsonNode> lines, String path) {
    return lines.stream().filter(l -> "dev.lethe.server.requests".equals(l.path("loggerName").asText()))
        .filter(l -> path.equals(kvp(l).get("path"))).findFirst().orElseThrow(() -> new AssertionError("no request line for " + path));
  }

  private static Map<String, String> kvp(JsonNode line) {
    Map<String, String> out = new java.util.HashMap<>();
    line.path("kvpList").forEach(pair -> pair.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText())));
    return out;
  }
}
