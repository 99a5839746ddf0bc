package dev.lethe.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.LetheServer;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's files and {@code GET /api/whoami} on a real server with auth on
 * (docs/design/0449-operator-console.md): the page without a token, strict headers, only the
 * bundled files, 404 for every other spelling under {@code /ui}, and who a token is.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleRoutesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  LetheServer server;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: root\n    token-sha256: " + TokenHash.sha256Hex("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: viewer\n    token-sha256: " + TokenHash.sha256Hex("reader-token") + "\n    read: [main]\n    write: []\n"
        + "  - name: nobody\n    token-sha256: " + TokenHash.sha256Hex("none-token") + "\n    read: []\n    write: []\n"
        + "  - name: notes\n    token-sha256: " + TokenHash.sha256Hex("notes-token") + "\n    read: []\n    write: []\n"
        + "    store:\n      read: [shared, notes]\n      write: [notes]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
  }

  @AfterAll
  void stop() {
    server.close();
  }

  HttpResponse<String> get(String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyBundledFileIsServedWithoutATokenAndWithStrictHeaders() throws Exception {
    Map<String, String> types = Map.ofEntries(Map.entry("/ui", "text/html"), Map.entry("/ui/", "text/html"),
        Map.entry("/ui/index.html", "text/html"), Map.entry("/ui/console.js", "text/javascript"),
        Map.entry("/ui/api.js", "text/javascript"), Map.entry("/ui/views.js", "text/javascript"),
        Map.entry("/ui/console.css", "text/css"), Map.entry("/ui/trash.js", "text/javascript"),
        Map.entry("/ui/holds.js", "text/javascript"), Map.entry("/ui/store.js", "text/javascript"));
    for (Map.Entry<String, String> e : types.entrySet()) {
      HttpResponse<String> r = get(e.getKey(), Map.of());
      assertThat(r.statusCode()).as(e.getKey()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).as(e.getKey()).hasValueSatisfying(t -> assertThat(t).startsWith(e.getValue()));
      assertThat(r.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp)
          .contains("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'").doesNotContain("unsafe"));
      assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
      assertThat(r.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
      assertThat(r.body()).isNotEmpty();
    }
    // the page has no inline script or style and loads nothing from another origin
    String page = get("/ui", Map.of()).body();
    assertThat(page).doesNotContain("<script>", "<style", " style=", "onclick", "http://", "https://");
  }

  @Test
  void nothingButTheBundledFilesIsServedUnderUi() throws Exception {
    for (String path : List.of("/ui/nope.js", "/ui/../ui/index.html/x", "/ui/%2e%2e/pom.xml", "/ui/..%2flogback.xml",
        "/ui/lethe-console/index.html", "/ui/dev/lethe/server/console/ConsoleRoutes.class", "/ui/INDEX.HTML", "/ui/index.html/",
        "/ui/%2fetc%2fpasswd", "/ui/a/b")) {
      HttpResponse<String> r = get(path, Map.of());
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      JsonNode body = JSON.readTree(r.body());
      assertThat(body.get("code").asInt()).as(path).isEqualTo(404);
      assertThat(body.get("type").asText()).as(path).isNotBlank();
    }
  }

  @Test
  void aRawDotDotPathNeverReachesAFile() throws Exception {
    // sent byte for byte: no client normalizes it first
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream().write("GET /ui/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).doesNotContain("root:");
      assertThat(answer.substring(0, answer.indexOf("\r\n"))).matches("HTTP/1.1 (400|404) .*");
    }
  }

  @Test
  void whoamiNamesThePrincipalAndWhatItMayDo() throws Exception {
    JsonNode admin = JSON.readTree(get("/api/whoami", Map.of("Authorization", "Bearer admin-token")).body());
    assertThat(admin.get("principal").asText()).isEqualTo("root");
    assertThat(admin.get("admin").asBoolean()).isTrue();
    assertThat(admin.get("metalake").asText()).isEqualTo("default");
    assertThat(admin.get("catalogs").toString()).isEqualTo("[{\"name\":\"main\",\"read\":true,\"write\":true}]");
    HttpResponse<String> reader = get("/api/whoami", Map.of("Authorization", "Bearer reader-token"));
    assertThat(reader.statusCode()).isEqualTo(200);
    JsonNode r = JSON.readTree(reader.body());
    assertThat(r.get("principal").asText()).isEqualTo("viewer");
    assertThat(r.get("admin").asBoolean()).isFalse();
    assertThat(r.get("catalogs").toString()).isEqualTo("[{\"name\":\"main\",\"read\":true,\"write\":false}]");
    assertThat(reader.body()).doesNotContain("reader-token", TokenHash.sha256Hex("reader-token"));
    JsonNode none = JSON.readTree(get("/api/whoami", Map.of("Authorization", "Bearer none-token")).body());
    assertThat(none.get("catalogs").size()).isZero();
    // the store grants: "*" for a catalog admin without a store key, none for anyone else without one
    assertThat(admin.get("store").toString()).isEqualTo("{\"read\":[\"*\"],\"write\":[\"*\"],\"admin\":true}");
    assertThat(r.get("store").toString()).isEqualTo("{\"read\":[],\"write\":[],\"admin\":false}");
    HttpResponse<String> notes = get("/api/whoami", Map.of("Authorization", "Bearer notes-token"));
    assertThat(JSON.readTree(notes.body()).get("store").toString())
        .isEqualTo("{\"read\":[\"notes\",\"shared\"],\"write\":[\"notes\"],\"admin\":false}");
    assertThat(notes.body()).doesNotContain("notes-token", TokenHash.sha256Hex("notes-token"));
  }

  @Test
  void whoamiIs401WithoutAValidToken() throws Exception {
    for (Map<String, String> headers : List.<Map<String, String>>of(Map.of(), Map.of("Authorization", "Bearer wrong"),
        Map.of("Authorization", "Basic YTpi"))) {
      HttpResponse<String> r = get("/api/whoami", headers);
      assertThat(r.statusCode()).as(headers.toString()).isEqualTo(401);
      assertThat(JSON.readTree(r.body()).get("code").asInt()).isEqualTo(401);
    }
  }

  @Test
  void managementAnswersAreNeverSniffedNorStored() throws Exception {
    for (Map<String, String> headers : List.<Map<String, String>>of(Map.of("Authorization", "Bearer admin-token"), Map.of())) {
      HttpResponse<String> r = get("/api/whoami", headers);
      assertThat(r.headers().firstValue("X-Content-Type-Options")).as(r.statusCode() + " answer").hasValue("nosniff");
      assertThat(r.headers().firstValue("Cache-Control")).as(r.statusCode() + " answer").hasValue("no-store");
    }
    HttpResponse<String> iceberg = get("/iceberg/v1/config?warehouse=main", Map.of("Authorization", "Bearer admin-token"));
    assertThat(iceberg.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
  }

  @Test
  void theServersOwnOriginMayWriteWithAuthOnAndAnotherMayNot() throws Exception {
    String own = "http://127.0.0.1:" + server.port();
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(own + "/api/metalakes/default/catalogs/main/cleanups/999/retry"))
        .POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer admin-token");
    HttpResponse<String> fromConsole = http.send(b.copy().header("Origin", own).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(fromConsole.statusCode()).as(fromConsole.body()).isEqualTo(404); // served: there is no job 999
    HttpResponse<String> fromElsewhere = http.send(b.copy().header("Origin", "http://evil.example").build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(fromElsewhere.statusCode()).isEqualTo(403);
    HttpResponse<String> reader = http.send(HttpRequest.newBuilder(URI.create(own + "/api/metalakes/default/catalogs/main/cleanups/999/retry"))
        .POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer reader-token").header("Origin", own).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(reader.statusCode()).isEqualTo(403);
  }

}
