package dev.lethe.server.hold;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Legal holds over HTTP against a real server with auth (docs/design/0444-legal-holds.md): only an
 * admin places or releases one, every reader lists it, a release is kept in the audit, a bad body is
 * 400 and stores nothing, and a purge of a held table (Iceberg drop with purge, management purge-now)
 * is 409 naming the hold and changes nothing until it is released.
 */
class HoldRoutesTest {
  private static final String NS = "/iceberg/v1/main/namespaces/db";
  private static final String HOLDS = "/api/metalakes/default/catalogs/main/holds";
  private static final String MGMT_TABLE = "/api/metalakes/default/catalogs/main/schemas/db/tables/";
  private static final Map<String, String> ROOT = Map.of("Authorization", "Bearer root-token");
  private static final Map<String, String> WRITER = Map.of("Authorization", "Bearer writer-token");
  private static final Map<String, String> READER = Map.of("Authorization", "Bearer reader-token");
  private static final String FUTURE_ISO = "2999-01-31T00:00:00Z";

  @TempDir Path dir;
  private LetheServer server;
  private ServerHttp http;

  private void start(boolean softDeletion) throws Exception {
    start(softDeletion, Map.of());
  }

  private void start(boolean softDeletion, Map<String, String> more) throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[main]", "[main]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, config(softDeletion, more)));
    http = new ServerHttp(server);
  }

  private static Map<String, String> config(boolean softDeletion, Map<String, String> more) {
    Map<String, String> c = new java.util.HashMap<>(more);
    c.put(ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDeletion));
    c.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    return c;
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

  private HttpResponse<String> hold(String body, Map<String, String> headers) throws Exception {
    return http.send("PUT", HOLDS, body, headers);
  }

  private JsonNode listed(String query) throws Exception {
    HttpResponse<String> r = http.send("GET", HOLDS + query, null, READER);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return json(r).get("holds");
  }

  /** A management error: the status, and the {code, type, message} shape. */
  private static void assertError(HttpResponse<String> r, int status, String type) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode e = json(r);
    assertThat(e.get("code").asInt()).as(r.body()).isEqualTo(status);
    assertThat(e.get("type").asText()).as(r.body()).isEqualTo(type);
    assertThat(e.get("message").asText()).as(r.body()).isNotEmpty();
  }

  @Test
  void onlyAnAdminPlacesOrReleasesEveryReaderListsAndTheReleaseIsAudited() throws Exception {
    start(false);
    long until = System.currentTimeMillis() + 86_400_000L;
    String body = "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"litigation 42\",\"expiresAt\":"
        + until + "}";
    assertError(hold(body, Map.of()), 401, "NotAuthorizedException");
    assertError(hold(body, READER), 403, "ForbiddenException");
    assertError(hold(body, WRITER), 403, "ForbiddenException");
    assertThat(listed("")).as("a refused PUT stores nothing").isEmpty();

    HttpResponse<String> placed = hold(body, ROOT);
    assertThat(placed.statusCode()).as(placed.body()).isEqualTo(200);
    JsonNode h = json(placed);
    assertThat(h.get("kind").asText()).isEqualTo("table");
    assertThat(h.get("namespace").get(0).asText()).isEqualTo("db");
    assertThat(h.get("name").asText()).isEqualTo("t");
    assertThat(h.get("placedBy").asText()).isEqualTo("root");
    assertThat(h.get("reason").asText()).isEqualTo("litigation 42");
    assertThat(h.get("expiresAt").asLong()).isEqualTo(until);
    assertThat(h.get("releasedBy").isNull()).isTrue();
    String tableHold = h.get("id").asText();

    HttpResponse<String> iso = hold("{\"kind\":\"namespace\",\"namespace\":[\"db\"],\"reason\":\"audit\",\"expiresAt\":\""
        + FUTURE_ISO + "\"}", ROOT);
    assertThat(iso.statusCode()).as(iso.body()).isEqualTo(200);
    assertThat(json(iso).get("expiresAt").asLong()).isEqualTo(Instant.parse(FUTURE_ISO).toEpochMilli());
    assertThat(json(iso).get("name").isNull()).isTrue();

    JsonNode holds = listed("");
    assertThat(holds).hasSize(2);
    assertThat(holds.get(0).get("id").asText()).isEqualTo(tableHold);
    assertThat(holds.get(0).get("reason").asText()).isEqualTo("litigation 42");
    assertThat(holds.get(1).get("kind").asText()).isEqualTo("namespace");
    assertError(http.send("GET", HOLDS, null, Map.of()), 401, "NotAuthorizedException");
    assertError(http.send("GET", HOLDS + "?include=everything", null, READER), 400, "IllegalArgumentException");

    String release = HOLDS + "?kind=table&namespace=db&name=t";
    assertError(http.send("DELETE", release, null, Map.of()), 401, "NotAuthorizedException");
    assertError(http.send("DELETE", release, null, READER), 403, "ForbiddenException");
    assertError(http.send("DELETE", release, null, WRITER), 403, "ForbiddenException");
    assertThat(listed("")).as("a refused DELETE releases nothing").hasSize(2);
    HttpResponse<String> released = http.send("DELETE", release, null, ROOT);
    assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
    JsonNode r = json(released).get("released");
    assertThat(r).hasSize(1);
    assertThat(r.get(0).get("id").asText()).isEqualTo(tableHold);
    assertThat(r.get(0).get("releasedBy").asText()).isEqualTo("root");
    assertThat(r.get(0).get("releasedAt").asLong()).isPositive();
    assertError(http.send("DELETE", release, null, ROOT), 404, "NotFoundException");
    assertError(http.send("DELETE", HOLDS + "?kind=table", null, ROOT), 400, "IllegalArgumentException");
    assertError(http.send("DELETE", HOLDS + "?kind=bucket&namespace=db", null, ROOT), 400, "IllegalArgumentException");

    assertThat(listed("")).hasSize(1);
    JsonNode audit = listed("?include=released");
    assertThat(audit).hasSize(2);
    JsonNode first = audit.get(0);
    assertThat(first.get("id").asText()).isEqualTo(tableHold);
    assertThat(first.get("releasedBy").asText()).isEqualTo("root");
    assertThat(first.get("reason").asText()).isEqualTo("litigation 42");
    assertThat(audit.get(1).get("releasedBy").isNull()).isTrue();

    // placing it again replaces it: the old one stays in the audit as released by the placer
    HttpResponse<String> again = hold("{\"kind\":\"namespace\",\"namespace\":[\"db\"],\"reason\":\"audit 2\"}", ROOT);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
    assertThat(json(again).get("expiresAt").isNull()).isTrue();
    assertThat(listed("")).hasSize(1);
    assertThat(listed("").get(0).get("reason").asText()).isEqualTo("audit 2");
    assertThat(listed("?include=released")).hasSize(3);
  }

  /**
   * A malformed body is a 400 {code, type, message} and stores nothing: read strictly (one JSON
   * value, no repeated key) and the names checked as an entry's, as the protection routes do.
   */
  @Test
  void aBadBodyIs400AndNothingIsStored() throws Exception {
    start(false);
    long past = System.currentTimeMillis() - 60_000L;
    String t = "\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\"";
    List<String> wrong = new ArrayList<>();
    for (String bad : new String[] {
        "not json", "[]", "", "null",
        "{" + t + "}",
        "{" + t + ",\"reason\":\"\"}",
        "{" + t + ",\"reason\":\"   \"}",
        "{" + t + ",\"reason\":null}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":" + past + "}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":\"2001-01-01T00:00:00Z\"}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":\"tomorrow\"}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":1.5e13}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":true}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":99999999999999999999999}",
        "{" + t + ",\"reason\":\"x\",\"expiresAt\":\"+1000000000-01-01T00:00:00Z\"}",
        "{" + t + ",\"reason\":\"x\",\"extra\":1}",
        "{" + t + ",\"reason\":\"x\",\"kind\":\"namespace\"}",
        "{" + t + ",\"reason\":\"x\",\"name\":\"u\"}",
        "{" + t + ",\"reason\":\"x\"} x",
        "{" + t + ",\"reason\":\"x\"}{}",
        "{\"kind\":\"namespace\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"reason\":\"x\"}",
        "{\"kind\":\"view\",\"namespace\":[\"db\"],\"name\":\"v\",\"reason\":\"x\"}",
        "{\"kind\":1,\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":\"db\",\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[1],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":7,\"reason\":\"x\"}",
        "{" + t + ",\"reason\":[\"x\"]}",
        "{" + t + ",\"reason\":\"a\\u0000b\"}",
        "{" + t + ",\"reason\":\"\\ud800\"}",
        "{\"kind\":\"table\",\"namespace\":[\"d\\u0000b\"],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"\\u0000\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\"d\\u001fb\"],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"..\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\".\"],\"name\":\"t\",\"reason\":\"x\"}",
        "{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"a/b\",\"reason\":\"x\"}",
        "{" + t + ",\"reason\":\"" + "r".repeat(1025) + "\"}"}) {
      HttpResponse<String> r = hold(bad, ROOT);
      JsonNode e = json(r);
      if (r.statusCode() != 400 || e.path("code").asInt() != 400
          || !e.path("type").asText().equals("IllegalArgumentException") || e.path("message").asText().isEmpty()) {
        wrong.add(bad + " -> " + r.statusCode() + " " + r.body());
      }
    }
    assertThat(wrong).as("answers other than a 400 {code, type, message}").isEmpty();
    assertThat(listed("?include=released")).as("nothing stored").isEmpty();
  }

  @Test
  void aPurgeOfAHeldTableIs409UntilReleased() throws Exception {
    start(false);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", ROOT).statusCode())
        .isEqualTo(200);
    Path metadata = Path.of(http.createTable("db", "t", ROOT));
    Path other = Path.of(http.createTable("db", "u", ROOT));
    for (String name : new String[] {"t", "u"}) {
      HttpResponse<String> placed = hold("{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"" + name
          + "\",\"reason\":\"case 7\",\"expiresAt\":\"" + FUTURE_ISO + "\"}", ROOT);
      assertThat(placed.statusCode()).as(placed.body()).isEqualTo(200);
    }
    String holdOfU = listed("").get(1).get("id").asText();

    HttpResponse<String> refused = http.send("DELETE", NS + "/tables/u?purgeRequested=true", null, WRITER);
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
    assertThat(refused.body()).contains("legal hold " + holdOfU).contains("placed by root").contains("case 7");
    HttpResponse<String> async = http.send("DELETE", NS + "/tables/u?purgeRequested=true", null,
        Map.of("Authorization", "Bearer writer-token", "X-Lethe-Async-Purge", "true"));
    assertThat(async.statusCode()).as(async.body()).isEqualTo(409);
    assertThat(async.body()).contains("legal hold " + holdOfU);
    assertThat(http.send("GET", NS + "/tables/u", null, ROOT).statusCode()).isEqualTo(200);
    assertThat(Files.exists(other)).isTrue();
    assertThat(json(http.send("GET", "/api/metalakes/default/catalogs/main/cleanups", null, ROOT)).get("cleanups"))
        .as("no job queued").isEmpty();

    assertThat(http.send("DELETE", HOLDS + "?kind=table&namespace=db&name=u", null, ROOT).statusCode()).isEqualTo(200);
    HttpResponse<String> dropped = http.send("DELETE", NS + "/tables/u?purgeRequested=true", null, WRITER);
    assertThat(dropped.statusCode()).as(dropped.body()).isEqualTo(204);
    assertThat(http.send("GET", NS + "/tables/u", null, ROOT).statusCode()).isEqualTo(404);

    // with soft deletion on: the soft drop is allowed (it deletes no file), the purge-now is refused
    server.close();
    start(true);
    assertThat(listed("")).hasSize(1);
    assertThat(http.send("DELETE", NS + "/tables/t?purgeRequested=true", null, WRITER).statusCode()).isEqualTo(204);
    HttpResponse<String> purgeNow = http.send("POST", MGMT_TABLE + "t/purge", null, ROOT);
    assertError(purgeNow, 409, "HeldException");
    assertThat(json(purgeNow).get("message").asText()).contains("legal hold").contains("placed by root");
    assertThat(json(purgeNow).get("hold").get("reason").asText()).isEqualTo("case 7");
    HttpResponse<String> retained = http.send("GET", MGMT_TABLE + "t?deleted=true", null, ROOT);
    assertThat(retained.statusCode()).as(retained.body()).isEqualTo(200);
    assertThat(json(retained).get("state").asText()).as(retained.body()).isNotEqualTo("PURGING");
    assertThat(Files.exists(metadata)).isTrue();

    assertThat(http.send("DELETE", HOLDS + "?kind=table&namespace=db&name=t", null, ROOT).statusCode()).isEqualTo(200);
    HttpResponse<String> purged = http.send("POST", MGMT_TABLE + "t/purge", null, ROOT);
    assertThat(purged.statusCode()).as(purged.body()).isEqualTo(202);
    assertThat(json(purged).get("state").asText()).isEqualTo("PURGING");
  }

  @Test
  void aHeldTablePastItsDeadlineIsListedRecoverableAndHeldAndUndropWorks() throws Exception {
    start(true, Map.of(ConfigKeys.SOFT_DELETE_RETENTION_MS, "0")); // every soft drop is past its deadline at once
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", ROOT).statusCode())
        .isEqualTo(200);
    http.createTable("db", "t", ROOT);
    http.createTable("db", "u", ROOT);
    HttpResponse<String> placed = hold("{\"kind\":\"table\",\"namespace\":[\"db\"],\"name\":\"t\",\"reason\":\"case 8\"}",
        ROOT);
    assertThat(placed.statusCode()).as(placed.body()).isEqualTo(200);
    assertThat(json(placed).get("runningPurges")).as("no purge of db.t was running").isEmpty();
    for (String name : new String[] {"t", "u"}) {
      assertThat(http.send("DELETE", NS + "/tables/" + name, null, WRITER).statusCode()).isEqualTo(204);
    }

    HttpResponse<String> list = http.send("GET", "/api/metalakes/default/catalogs/main/schemas/db/tables?deleted=true",
        null, ROOT);
    assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
    Map<String, JsonNode> byName = new java.util.TreeMap<>();
    for (JsonNode d : json(list).get("deleted")) {
      byName.put(d.get("name").asText(), d);
    }
    assertThat(byName.get("t").get("recoverable").asBoolean()).as(list.body()).isTrue();
    assertThat(byName.get("t").get("held").asBoolean()).isTrue();
    assertThat(byName.get("u").get("recoverable").asBoolean()).as("past its deadline, not held").isFalse();
    assertThat(byName.get("u").get("held").asBoolean()).isFalse();
    HttpResponse<String> one = http.send("GET", MGMT_TABLE + "t?deleted=true", null, ROOT);
    assertThat(json(one).get("recoverable").asBoolean()).as(one.body()).isTrue();
    assertThat(json(one).get("held").asBoolean()).isTrue();

    HttpResponse<String> undrop = http.send("POST", MGMT_TABLE + "t/undrop", null, WRITER);
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);
    assertThat(http.send("GET", NS + "/tables/t", null, ROOT).statusCode()).isEqualTo(200);
  }
}
