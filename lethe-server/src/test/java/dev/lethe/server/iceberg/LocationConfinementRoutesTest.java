package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 1 of issue 9 over real HTTP on a real server (embedded H2, local warehouse): a location that
 * does not parse or lies outside the allowed locations is a JSON 400 naming it, and nothing is
 * written (docs/design/0001-purge-confinement-and-ownership.md §2).
 */
class LocationConfinementRoutesTest {
  private static final String TABLES = "/iceberg/v1/main/namespaces/db/tables";

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  private void start(Map<String, String> props) throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    http = new ServerHttp(server);
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}").statusCode()).isEqualTo(200);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return http.send(method, path, body, Map.of());
  }

  private static String createBody(String name, String location, boolean stage) {
    String table = String.format(ServerHttp.TABLE_BODY, name);
    return table.substring(0, table.length() - 1) + ",\"location\":" + ServerHttp.JSON.valueToTree(location)
        + (stage ? ",\"stage-create\":true" : "") + "}";
  }

  private static String error400(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
    JsonNode error = ServerHttp.JSON.readTree(r.body()).get("error");
    assertThat(error.get("code").asInt()).isEqualTo(400);
    return error.get("message").asText();
  }

  @Test
  void aLocationNamingAnExistingFileWithAQueryOrFragmentIs400AndTheFileIsUntouched() throws Exception {
    start(Map.of());
    Path existing = dir.resolve("warehouse").resolve("db").resolve("existing-file");
    Files.createDirectories(existing.getParent());
    Files.writeString(existing, "do not overwrite");
    for (String location : List.of("file:" + existing + "?", "file:" + existing + "#", existing + "?",
        "file:" + existing + "?/x")) {
      for (boolean stage : List.of(false, true)) {
        String message = error400(send("POST", TABLES, createBody("t", location, stage)));
        assertThat(message).as(location).contains("Invalid location").contains(existing.toString());
      }
    }
    assertThat(Files.readString(existing)).isEqualTo("do not overwrite");
    try (Stream<Path> s = Files.list(existing.getParent())) {
      assertThat(s.toList()).containsExactly(existing);
    }
    assertThat(send("GET", TABLES, null).body()).contains("\"identifiers\":[]");
  }

  @Test
  void aLocationOutsideTheWarehouseIs400UnlessTheServerAllowsIt() throws Exception {
    Path allowed = dir.resolve("allowed");
    start(Map.of(ConfigKeys.ALLOWED_LOCATIONS, "file://" + allowed));
    Path elsewhere = dir.resolve("elsewhere").resolve("t");
    for (boolean stage : List.of(false, true)) {
      String message = error400(send("POST", TABLES, createBody("t", elsewhere.toString(), stage)));
      assertThat(message).contains(elsewhere.toString()).contains("outside the catalog's allowed locations");
    }
    assertThat(Files.exists(elsewhere)).isFalse();
    String namespace = error400(send("POST", "/iceberg/v1/main/namespaces",
        "{\"namespace\":[\"other\"],\"properties\":{\"location\":\"" + elsewhere + "\"}}"));
    assertThat(namespace).contains("namespace location");
    assertThat(send("GET", "/iceberg/v1/main/namespaces/other", null).statusCode()).isEqualTo(404);

    HttpResponse<String> ok = send("POST", TABLES, createBody("t", allowed.resolve("t").toString(), false));
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(Files.isDirectory(allowed.resolve("t").resolve("metadata"))).isTrue();
  }

  @Test
  void aDotDotStatisticsPathOrManifestListAtCommitIs400AndChangesNothing() throws Exception {
    start(Map.of());
    String before = http.createTable("db", "t", Map.of());
    String location = ServerHttp.JSON.readTree(send("GET", TABLES + "/t", null).body()).get("metadata").get("location").asText();
    String snapshot = "{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":7,\"timestamp-ms\":1700000000000,"
        + "\"sequence-number\":1,\"summary\":{\"operation\":\"append\"},\"schema-id\":0,\"manifest-list\":%s}}";
    String stats = "{\"action\":\"set-statistics\",\"statistics\":{\"snapshot-id\":7,\"statistics-path\":%s,"
        + "\"file-size-in-bytes\":1,\"file-footer-size-in-bytes\":1,\"blob-metadata\":[]}}";
    String goodList = ServerHttp.JSON.writeValueAsString(location + "/metadata/snap-7.avro");

    String badList = error400(send("POST", TABLES + "/t", "{\"updates\":[" + String.format(snapshot,
        ServerHttp.JSON.writeValueAsString(location + "/metadata/../../../x/snap-7.avro")) + "]}"));
    assertThat(badList).contains("manifest list of snapshot 7").contains("'..'");
    String badStats = error400(send("POST", TABLES + "/t", "{\"updates\":[" + String.format(snapshot, goodList) + ","
        + String.format(stats, ServerHttp.JSON.writeValueAsString(location + "/../../etc/passwd")) + "]}"));
    assertThat(badStats).contains("statistics file of snapshot 7").contains("'..'");

    JsonNode table = ServerHttp.JSON.readTree(send("GET", TABLES + "/t", null).body());
    assertThat(table.get("metadata-location").asText()).isEqualTo(before);
    try (Stream<Path> s = Files.list(Path.of(location, "metadata"))) {
      assertThat(s.count()).isEqualTo(1);
    }
  }
}
