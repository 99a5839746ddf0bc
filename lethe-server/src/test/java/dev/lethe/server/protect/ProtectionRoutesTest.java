package dev.lethe.server.protect;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.catalog.jobs.LoggingPurgeEventListener;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Drop protection over HTTP against a real server (docs/design/0441-drop-protection.md): only an
 * admin sets or clears it, everyone with read lists it, every drop route of a protected object is a
 * 409 naming the protection and who set it and changes nothing, and it survives a restart.
 */
class ProtectionRoutesTest {
  private static final String NS = "/iceberg/v1/main/namespaces/db";
  private static final String PROTECTIONS = "/api/metalakes/default/catalogs/main/protections";
  private static final String MGMT_TABLE = "/api/metalakes/default/catalogs/main/schemas/db/tables/";
  private static final Map<String, String> ROOT = Map.of("Authorization", "Bearer root-token");
  private static final Map<String, String> WRITER = Map.of("Authorization", "Bearer writer-token");

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  private void start(boolean softDeletion) throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[main]", "[main]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDeletion))));
    http = new ServerHttp(server);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String principal(String name, String token, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + TokenHash.sha256Hex(token) + "\n    read: " + read
        + "\n    write: " + write + "\n";
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return ServerHttp.JSON.readTree(r.body());
  }

  private static void assertRefused(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
    assertThat(r.body()).contains("protect").contains("set by root");
  }

  private HttpResponse<String> protect(String body, Map<String, String> headers) throws Exception {
    return http.send("PUT", PROTECTIONS, body, headers);
  }

  @Test
  void onlyAnAdminSetsOrClearsAndEveryReaderSeesIt() throws Exception {
    start(false);
    String body = "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"quarterly close\"}";
    HttpResponse<String> none = protect(body, Map.of());
    assertThat(none.statusCode()).as(none.body()).isEqualTo(401);
    HttpResponse<String> writer = protect(body, WRITER);
    assertThat(writer.statusCode()).as(writer.body()).isEqualTo(403);
    assertThat(json(writer).get("type").asText()).isEqualTo("ForbiddenException");
    HttpResponse<String> set = protect(body, ROOT);
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(json(set).get("setBy").asText()).isEqualTo("root");
    assertThat(json(set).get("reason").asText()).isEqualTo("quarterly close");

    HttpResponse<String> listed = http.send("GET", PROTECTIONS, null, Map.of("Authorization", "Bearer reader-token"));
    assertThat(listed.statusCode()).isEqualTo(200);
    JsonNode p = json(listed).get("protections").get(0);
    assertThat(p.get("kind").asText()).isEqualTo("table");
    assertThat(p.get("namespace").get(0).asText()).isEqualTo("db");
    assertThat(p.get("name").asText()).isEqualTo("t");
    assertThat(http.send("GET", PROTECTIONS, null, Map.of()).statusCode()).isEqualTo(401);

    String clear = PROTECTIONS + "?kind=table&namespace=db&name=t";
    assertThat(http.send("DELETE", clear, null, WRITER).statusCode()).isEqualTo(403);
    assertThat(http.send("DELETE", clear, null, Map.of()).statusCode()).isEqualTo(401);
    assertThat(http.send("DELETE", clear, null, ROOT).statusCode()).isEqualTo(204);
    HttpResponse<String> again = http.send("DELETE", clear, null, ROOT);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(404);
    assertThat(json(again).get("code").asInt()).isEqualTo(404);

    for (String bad : new String[] {"not json", "[]", "{\"kind\":\"table\",\"namespace\":[\"db\"]}",
        "{\"kind\":\"namespace\",\"namespace\":[\"db\"],\"name\":\"t\"}", "{\"kind\":\"bucket\",\"namespace\":[\"db\"]}",
        "{\"kind\":\"table\",\"namespace\":[],\"name\":\"t\"}", "{\"kind\":\"table\",\"namespace\":\"db\",\"name\":\"t\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"extra\":1}", "{\"kind\":1,\"namespace\":[\"db\"]}"}) {
      HttpResponse<String> r = protect(bad, ROOT);
      assertThat(r.statusCode()).as(bad + " -> " + r.body()).isEqualTo(400);
      assertThat(json(r).get("type").asText()).isEqualTo("IllegalArgumentException");
    }
    assertThat(http.send("DELETE", PROTECTIONS + "?kind=table", null, ROOT).statusCode()).isEqualTo(400);
  }

  /**
   * A set and a clear through the routes reach the server's event listener
   * (docs/design/0447-operator-events.md): its audit line names who, what, which object and why; a
   * refused set or clear, and a clear of nothing, add no line.
   */
  @Test
  void aSetAndAClearThroughTheRoutesAreToldToTheServersListener() throws Exception {
    Logger log = (Logger) LoggerFactory.getLogger(LoggingPurgeEventListener.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    log.addAppender(lines);
    Level level = log.getLevel();
    log.setLevel(Level.INFO);
    try {
      start(false);
      String body = "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"quarterly close\"}";
      assertThat(protect(body, WRITER).statusCode()).isEqualTo(403);
      assertThat(protect("{\"kind\":\"table\",\"namespace\":[\"db\"]}", ROOT).statusCode()).isEqualTo(400);
      assertThat(operatorLines(lines)).isEmpty();

      assertThat(protect(body, ROOT).statusCode()).isEqualTo(200);
      assertThat(operatorLines(lines)).containsExactly("Operator root protected table main.db.t: quarterly close");

      String clear = PROTECTIONS + "?kind=table&namespace=db&name=t";
      assertThat(http.send("DELETE", clear, null, WRITER).statusCode()).isEqualTo(403);
      assertThat(http.send("DELETE", clear, null, ROOT).statusCode()).isEqualTo(204);
      assertThat(http.send("DELETE", clear, null, ROOT).statusCode()).isEqualTo(404);
      assertThat(operatorLines(lines)).containsExactly("Operator root protected table main.db.t: quarterly close",
          "Operator root cleared the protection on table main.db.t (set by root: quarterly close)");
    } finally {
      log.detachAppender(lines);
      log.setLevel(level);
    }
  }

  private static java.util.List<String> operatorLines(ListAppender<ILoggingEvent> lines) {
    synchronized (lines.list) {
      return lines.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.startsWith("Operator ")).toList();
    }
  }

  /**
   * The body is read strictly and the names checked as an entry's (docs/design/0400): a repeated
   * key, trailing text, an unpaired surrogate, a control character (PostgreSQL answered U+0000 with
   * 500) or a name no entry can have is 400, and nothing is stored.
   */
  @Test
  void aMalformedOrImpossibleNameIs400AndNothingIsStored() throws Exception {
    start(false);
    for (String bad : new String[] {
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"kind\":\"view\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\"} x",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"\\ud800\"}",
        "{\"kind\":\"table\",\"namespace\":[\"d\\u0000b\"],\"name\":\"t\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"\\u0000\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"a\\u0000b\"}",
        "{\"kind\":\"table\",\"namespace\":[\"d\\u001fb\"],\"name\":\"t\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"..\"}",
        "{\"kind\":\"table\",\"namespace\":[\".\"],\"name\":\"t\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"a/b\"}"}) {
      HttpResponse<String> r = protect(bad, ROOT);
      assertThat(r.statusCode()).as(bad + " -> " + r.body()).isEqualTo(400);
    }
    HttpResponse<String> listed = http.send("GET", PROTECTIONS, null, ROOT);
    assertThat(json(listed).get("protections").size()).as(listed.body()).isZero();
  }

  @Test
  void everyDropRouteOfAProtectedObjectIs409AndItSurvivesARestart() throws Exception {
    start(false);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", ROOT).statusCode())
        .isEqualTo(200);
    Path metadata = Path.of(http.createTable("db", "t", ROOT));
    assertThat(protect("{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"keep\"}", ROOT)
        .statusCode()).isEqualTo(200);

    assertRefused(http.send("DELETE", NS + "/tables/t", null, WRITER));
    assertRefused(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, WRITER));
    assertRefused(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null,
        Map.of("Authorization", "Bearer writer-token", "X-Lethe-Async-Purge", "true")));
    assertRefused(http.send("POST", "/iceberg/v1/main/tables/rename",
        "{\"source\":{\"namespace\":[\"db\"],\"name\":\"t\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"u\"}}",
        WRITER));
    assertRefused(http.send("DELETE", MGMT_TABLE + "t", null, WRITER));
    assertRefused(http.send("DELETE", NS, null, WRITER));
    HttpResponse<String> refused = http.send("DELETE", MGMT_TABLE + "t", null, WRITER);
    JsonNode protection = json(refused).get("protection");
    assertThat(json(refused).get("type").asText()).isEqualTo("ProtectedException");
    assertThat(protection.get("setBy").asText()).isEqualTo("root");
    assertThat(protection.get("reason").asText()).isEqualTo("keep");
    assertThat(http.send("GET", NS + "/tables/t", null, ROOT).statusCode()).isEqualTo(200);
    assertThat(Files.exists(metadata)).isTrue();

    // after a restart, with soft deletion on: still listed, still refused
    server.close();
    start(true);
    assertThat(json(http.send("GET", PROTECTIONS, null, ROOT)).get("protections")).hasSize(1);
    assertRefused(http.send("DELETE", MGMT_TABLE + "t", null, WRITER));
    assertRefused(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, WRITER));
    assertThat(http.send("GET", NS + "/tables/t", null, ROOT).statusCode()).isEqualTo(200);
    assertThat(Files.exists(metadata)).isTrue();

    // a namespace protection covers a table created later
    assertThat(protect("{\"kind\":\"namespace\",\"namespace\":[\"db\"]}", ROOT).statusCode()).isEqualTo(200);
    http.createTable("db", "later", ROOT);
    assertRefused(http.send("DELETE", NS + "/tables/later", null, WRITER));
    assertThat(http.send("DELETE", PROTECTIONS + "?kind=namespace&namespace=db", null, ROOT).statusCode()).isEqualTo(204);
    assertThat(http.send("DELETE", NS + "/tables/later", null, WRITER).statusCode()).isEqualTo(204);
  }

  /**
   * A namespace level may contain a dot (docs/design/0441 "Exact names"): the JSON-array spelling of
   * the namespace parameter names it exactly, the dot spelling names other levels (404 as before), a
   * malformed array is 400, and the PUT answer says whether the object exists.
   */
  @Test
  void aDottedLevelIsNamedExactlyByTheJsonSpelling() throws Exception {
    start(false);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"a.b\"]}", ROOT).statusCode())
        .isEqualTo(200);
    http.createTable("a.b", "t", ROOT);
    HttpResponse<String> set = protect("{\"kind\":\"table\",\"namespace\":[\"a.b\"],\"name\":\"t\"}", ROOT);
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(json(set).get("exists").asBoolean()).as(set.body()).isTrue();
    HttpResponse<String> typo = protect("{\"kind\":\"table\",\"namespace\":[\"a\",\"b\"],\"name\":\"t\"}", ROOT);
    assertThat(typo.statusCode()).as(typo.body()).isEqualTo(200);
    assertThat(json(typo).get("exists").asBoolean()).as(typo.body()).isFalse();
    HttpResponse<String> namespace = protect("{\"kind\":\"namespace\",\"namespace\":[\"a.b\"]}", ROOT);
    assertThat(json(namespace).get("exists").asBoolean()).as(namespace.body()).isTrue();
    assertThat(http.send("DELETE", PROTECTIONS + "?kind=namespace&namespace=%5B%22a.b%22%5D", null, ROOT).statusCode())
        .isEqualTo(204);

    assertRefused(http.send("DELETE", "/iceberg/v1/main/namespaces/a.b/tables/t", null, WRITER));
    for (String bad : new String[] {"%5B", "%5B%5D", "%5B1%5D", "%5B%22a.b%22%5Dx", "%5B%22%22%5D", "%5B%22a%00%22%5D",
        "%5B%22..%22%5D", "%5Bnull%5D"}) {
      HttpResponse<String> r = http.send("DELETE", PROTECTIONS + "?kind=table&name=t&namespace=" + bad, null, ROOT);
      assertThat(r.statusCode()).as(bad + " -> " + r.body()).isEqualTo(400);
      assertThat(json(r).get("code").asInt()).isEqualTo(400);
      assertThat(json(r).get("type").asText()).isEqualTo("IllegalArgumentException");
      assertThat(json(r).get("message").asText()).isNotEmpty();
    }
    HttpResponse<String> cleanups = http.send("GET", "/api/metalakes/default/catalogs/main/cleanups?namespace=%5B%22a.b%22%5D",
        null, ROOT);
    assertThat(cleanups.statusCode()).as(cleanups.body()).isEqualTo(200);
    assertThat(http.send("GET", "/api/metalakes/default/catalogs/main/cleanups?namespace=%5B", null, ROOT).statusCode())
        .isEqualTo(400);

    // the dot spelling names ["a","b"] (the typo's protection), never ["a.b"]
    assertThat(http.send("DELETE", PROTECTIONS + "?kind=table&namespace=a.b&name=t", null, ROOT).statusCode()).isEqualTo(204);
    assertThat(http.send("DELETE", PROTECTIONS + "?kind=table&namespace=a.b&name=t", null, ROOT).statusCode()).isEqualTo(404);
    assertRefused(http.send("DELETE", "/iceberg/v1/main/namespaces/a.b/tables/t", null, WRITER));
    assertThat(http.send("DELETE", PROTECTIONS + "?kind=table&namespace=%5B%22a.b%22%5D&name=t", null, ROOT).statusCode())
        .isEqualTo(204);
    assertThat(http.send("DELETE", "/iceberg/v1/main/namespaces/a.b/tables/t", null, WRITER).statusCode()).isEqualTo(204);
  }
}
