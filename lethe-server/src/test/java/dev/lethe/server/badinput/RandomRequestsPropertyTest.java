package dev.lethe.server.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random names, paths, JSON bodies and headers against the Iceberg REST and management routes of a
 * real in-process server over real HTTP, sent byte for byte on a socket (H2, or the backend named by
 * {@code lethe.test.random.backend}: {@code postgresql}, {@code mariadb}). For every request: never a
 * 5xx; every 4xx (but to {@code HEAD}) carries a JSON error in its route's shape; and a refused
 * request leaves every catalog row and every warehouse file exactly as it was.
 */
class RandomRequestsPropertyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path dir;
  private static BackendServer s;

  @BeforeContainer
  static void start() throws Exception {
    dir = Files.createTempDirectory("lethe-random-requests");
    s = new BackendServer(System.getProperty("lethe.test.random.backend", "h2"), dir);
    s.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}");
    s.send("POST", "/iceberg/v1/main/namespaces/db/tables", table("\"t\""));
    s.send("POST", "/iceberg/v1/main/namespaces/db/views", view("\"v\""));
  }

  @AfterContainer
  static void stop() throws Exception {
    if (s != null) {
      s.close();
    }
  }

  record Request(String method, String path, String body, List<String> headers) {}

  @Property(tries = 400)
  void noRequestIsA5xxAndARefusedOneChangesNothing(@ForAll("requests") Request r) throws Exception {
    String before = s.snapshot();
    BackendServer.Raw response = s.sendRaw(r.method(), r.path(), r.body(), r.headers());
    int status = response.status();
    assertThat(status).as("%s %s %s -> %s", r.method(), r.path(), r.body(), response.body()).isLessThan(500);
    if (status >= 400) {
      if (!r.method().equals("HEAD")) {
        assertThat(response.headers().get("Content-Type")).as("%s %s -> %s %s %s", r.method(), r.path(), status, response.headers(), response.body()).startsWith("application/json");
        JsonNode body = JSON.readTree(response.body());
        JsonNode error = body.has("error") ? body.get("error") : body;
        assertThat(error.get("code").asInt()).as(response.body()).isEqualTo(status);
        assertThat(error.get("message").asText()).as(response.body()).isNotBlank();
      }
      assertThat(s.snapshot()).as("%s %s %s -> %s", r.method(), r.path(), r.body(), status).isEqualTo(before);
    }
  }

  // ---- generators ----

  @Provide
  Arbitrary<Request> requests() {
    return Combinators.combine(Arbitraries.of("GET", "HEAD", "POST", "DELETE", "PUT"), paths(), bodies(), headers())
        .as(Request::new);
  }

  /** A name as a client means it: plain, unicode, spaces, '+', '%', dots, separators, surrogates, long. */
  static Arbitrary<String> names() {
    return Arbitraries.oneOf(
        Arbitraries.of("db", "t", "v", "missing", "my ns", "a+b", "t ", ".", "..", "", "a\u001fb", "a/b", "\u65e5",
            "a\u0000b", "a\ud800b", "\ud83d\ude00"),
        Arbitraries.strings().all().ofMinLength(0).ofMaxLength(12),
        Arbitraries.strings().withCharRange('a', 'c').ofLength(250).map(x -> x + "xyzuvw"),
        Arbitraries.strings().withChars("\u00e9\u65e5").ofMinLength(250).ofMaxLength(260));
  }

  /** A raw path segment: a name encoded as 1.11 (+) or 1.12 (%20) would, or raw percent bytes. */
  static Arbitrary<String> segments() {
    return Arbitraries.oneOf(
        names().map(n -> URLEncoder.encode(n, StandardCharsets.UTF_8)),
        names().map(n -> URLEncoder.encode(n, StandardCharsets.UTF_8).replace("+", "%20")),
        Arbitraries.integers().between(0, 255).list().ofMinSize(1).ofMaxSize(6)
            .map(bytes -> bytes.stream().map(b -> String.format("%%%02X", b)).reduce("", String::concat)),
        Arbitraries.of("db", "db%1Fx", "%ED%A0%80", "%C0%AF", "%", "%zz", "+", "a%2Fb", "t", "v"));
  }

  static Arbitrary<String> queries() {
    return Arbitraries.oneOf(
        Arbitraries.just(""),
        Arbitraries.of("pageSize", "pageToken", "parent", "purgeRequested", "snapshots", "deleted", "warehouse",
                "namespace", "state", "limit", "name")
            .flatMap(k -> segments().map(v -> "?" + k + "=" + v)));
  }

  static Arbitrary<String> paths() {
    Arbitrary<String> seg = segments();
    Arbitrary<String> iceberg = Combinators.combine(Arbitraries.of("main", "main", "main", "nope"), seg, seg,
            Arbitraries.of("", "/properties", "/tables", "/tables/{x}", "/tables/{x}/metrics", "/register",
                "/register-view", "/views", "/views/{x}"), queries())
        .as((prefix, ns, x, tail, q) -> "/iceberg/v1/" + prefix + "/namespaces/" + ns + tail.replace("{x}", x) + q);
    Arbitrary<String> icebergRoot = Combinators.combine(Arbitraries.of("/namespaces", "/tables/rename",
            "/views/rename", "/transactions/commit"), queries())
        .as((tail, q) -> "/iceberg/v1/main" + tail + q);
    Arbitrary<String> config = queries().map(q -> "/iceberg/v1/config" + q);
    Arbitrary<String> management = Combinators.combine(Arbitraries.of("default", "nope"), Arbitraries.of("main", "nope"),
            seg, seg, Arbitraries.of("/tables", "/tables/{x}", "/tables/{x}/undrop", "/tables/{x}/purge"), queries())
        .as((m, c, s, x, tail, q) -> "/api/metalakes/" + m + "/catalogs/" + c + "/schemas/" + s
            + tail.replace("{x}", x) + q);
    Arbitrary<String> cleanups = queries().map(q -> "/api/metalakes/default/catalogs/main/cleanups" + q);
    return Arbitraries.oneOf(iceberg, iceberg, iceberg, icebergRoot, config, management, cleanups);
  }

  static Arbitrary<String> bodies() {
    Arbitrary<String> quoted = names().map(RandomRequestsPropertyTest::quote);
    return Arbitraries.oneOf(
        Arbitraries.just(null),
        quoted.map(n -> "{\"namespace\":[" + n + "],\"properties\":{" + n + ":" + n + "}}"),
        quoted.map(RandomRequestsPropertyTest::table),
        quoted.map(RandomRequestsPropertyTest::view),
        quoted.map(n -> "{\"name\":" + n + ",\"metadata-location\":" + quote(dir.resolve("warehouse").toString()) + "}"),
        quoted.map(n -> "{\"source\":{\"namespace\":[\"db\"],\"name\":\"t\"},\"destination\":{\"namespace\":[" + n
            + "],\"name\":" + n + "}}"),
        quoted.map(n -> "{\"updates\":{" + n + ":\"1\"},\"removals\":[" + n + "]}"),
        quoted.map(n -> "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{" + n + ":" + n + "}}]}"),
        quoted.map(n -> "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":" + n + "}]}"),
        quoted.map(n -> "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"db\"],\"name\":" + n
            + "},\"requirements\":[],\"updates\":[]}]}"),
        quoted.map(n -> "{\"namespace\":[" + n + "],\"namespace\":[\"dup\"]}"),
        quoted.map(n -> "{\"namespace\":[" + n + "]} trailing"),
        Arbitraries.strings().all().ofMaxLength(40),
        Arbitraries.of("{}", "[]", "null", "1", "\"x\"", "{\"namespace\":[]}", "{\"name\":\"t\"}", "{\"namespace\":null}",
            "{\"namespace\":[\"a\"],\"properties\":{\"k\":null}}", "[".repeat(2000), "{\"a\":" .repeat(100)));
  }

  static Arbitrary<List<String>> headers() {
    Arbitrary<String> value = Arbitraries.oneOf(Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20),
        Arbitraries.of("true", "false", "TRUE", "Bearer x", "", "yes"));
    Arbitrary<List<String>> one = Combinators.combine(Arbitraries.of("Authorization", "X-Lethe-Async-Purge",
            "X-Gravitino-Async-Purge", "Content-Type", "Accept", "X-Iceberg-Access-Delegation"), value)
        .as((k, v) -> List.of(k, v));
    return one.list().ofMaxSize(3).map(pairs -> {
      List<String> flat = new ArrayList<>();
      pairs.forEach(flat::addAll);
      return flat;
    });
  }

  static String quote(String s) {
    try {
      return JSON.writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String table(String nameJson) {
    return "{\"name\":" + nameJson + ",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
        + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";
  }

  static String view(String nameJson) {
    return "{\"name\":" + nameJson + ",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]},"
        + "\"view-version\":{\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,\"summary\":{},"
        + "\"default-namespace\":[\"db\"],\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"spark\"}]},"
        + "\"properties\":{}}";
  }
}
