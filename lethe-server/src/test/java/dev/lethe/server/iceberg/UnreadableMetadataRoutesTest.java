package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table or view whose current metadata file cannot be read (bytes that are not JSON, JSON that is
 * not metadata, a truncated file) answers every route that reads it with a 500
 * {@code UnreadableMetadataException} naming the entity and the file: the server's storage failed,
 * not the client's request. A missing file is a 404 {@code NotFoundException} naming it, as
 * Iceberg's REST compatibility kit requires. Nothing changes, and the catalog still lists the entry.
 */
class UnreadableMetadataRoutesTest {
  private static final String NS = "/iceberg/v1/main/namespaces/db";
  private static final String VIEW = "{\"name\":\"v\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]},"
      + "\"view-version\":{\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,\"summary\":{},\"default-namespace\":[\"db\"],"
      + "\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"spark\"}]},\"properties\":{}}";
  private static final String COMMIT = "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]}";

  @TempDir Path dir;
  LetheServer server;
  ServerHttp http;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  static void spoil(Path file, String how) {
    try {
      switch (how) {
        case "not-json" -> Files.write(file, new byte[] {0x1f, (byte) 0x8b, 0, 1, 2, 'x'});
        case "not-metadata" -> Files.writeString(file, "{\"format-version\":2}");
        case "truncated" -> {
          byte[] all = Files.readAllBytes(file);
          Files.write(file, java.util.Arrays.copyOf(all, all.length / 2));
        }
        case "missing" -> Files.delete(file);
        default -> throw new IllegalArgumentException(how);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"not-json", "not-metadata", "truncated", "missing"})
  void everyRouteThatReadsASpoiledMetadataFileAnswersA500NamingIt(String how) throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    http = new ServerHttp(server);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of()).statusCode()).isEqualTo(200);
    String table = http.createTable("db", "t", Map.of());
    HttpResponse<String> v = http.send("POST", NS + "/views", VIEW, Map.of());
    assertThat(v.statusCode()).as(v.body()).isEqualTo(200);
    String view = ServerHttp.JSON.readTree(v.body()).get("metadata-location").asText();
    spoil(Path.of(table), how);
    spoil(Path.of(view), how);

    List<String> wrong = new ArrayList<>();
    Consumer<Object[]> check = r -> {
      try {
        HttpResponse<String> got = http.send((String) r[0], (String) r[1], (String) r[2], Map.of());
        String file = (String) r[3];
        JsonNode error = got.body().isEmpty() ? null : ServerHttp.JSON.readTree(got.body()).get("error");
        // a missing file is Iceberg's 404 NotFoundException, as the REST compatibility kit requires
        int status = how.equals("missing") ? 404 : 500;
        String type = how.equals("missing") ? "NotFoundException" : "UnreadableMetadataException";
        if (got.statusCode() != status || error == null || !error.get("type").asText().equals(type)
            || !error.get("message").asText().contains(file)) {
          wrong.add(r[0] + " " + r[1] + " -> " + got.statusCode() + " " + got.body());
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
    check.accept(new Object[] {"GET", NS + "/tables/t", null, table});
    check.accept(new Object[] {"GET", NS + "/tables/t?snapshots=refs", null, table});
    check.accept(new Object[] {"POST", NS + "/tables/t", COMMIT, table});
    check.accept(new Object[] {"POST", "/iceberg/v1/main/transactions/commit", "{\"table-changes\":[{\"identifier\":"
        + "{\"namespace\":[\"db\"],\"name\":\"t\"},\"requirements\":[],\"updates\":[{\"action\":\"set-properties\","
        + "\"updates\":{\"k\":\"v\"}}]}]}", table});
    check.accept(new Object[] {"GET", NS + "/views/v", null, view});
    check.accept(new Object[] {"POST", NS + "/views/v", COMMIT, view});
    assertThat(wrong).isEmpty();

    // the entries are still there, and exist
    assertThat(http.send("HEAD", NS + "/tables/t", null, Map.of()).statusCode()).isEqualTo(204);
    assertThat(http.send("GET", NS + "/tables", null, Map.of()).body()).contains("\"t\"");
    assertThat(http.send("GET", NS + "/views", null, Map.of()).body()).contains("\"v\"");
  }
}
