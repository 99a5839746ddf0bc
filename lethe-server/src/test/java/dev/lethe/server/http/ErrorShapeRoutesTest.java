package dev.lethe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One error shape per route family over real HTTP (docs/design/0437-one-error-shape.md): every
 * status each family can be made to answer, on management ({@code /api/}) and store ({@code
 * /store/}) routes {@code {code, type, message}} with {@code code} the HTTP status, on Iceberg
 * routes {@code {"error": {message, type, code}}}; always {@code application/json}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorShapeRoutesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLES = "/api/metalakes/default/catalogs/main/schemas/db/tables";
  private static final String KEY = "/store/v1/records/team/c/k";
  private static final String ADMIN = "Bearer admin-token";
  private static final String READER = "Bearer reader-token";
  private static final String RECORD = "{\"kind\":\"document\",\"body\":{\"text\":\"x\"},\"meta\":{\"author\":\"admin\"}}";
  private static final String BIG = "{\"pad\":\"" + "x".repeat(4096) + "\"}";

  /**
   * PLAIN: {@code {code, type, message}}; ICEBERG: {@code {"error": {…}}}; RECORD: the store's 409,
   * the stored record (the one non-error-shaped refusal, kept for clients that decode it).
   */
  enum Shape { PLAIN, ICEBERG, RECORD }

  /** One provoked failure: family, expected status and shape, request. */
  record Row(String family, int status, Shape shape, String method, String path, String token, String contentType,
      String body, Map<String, String> headers) {
    @Override
    public String toString() {
      return family + " " + status + " " + method + " " + path;
    }
  }

  /**
   * A {@code %00} in the path (400) or a request line over Jetty's limit (414): Jetty refuses the
   * request line before the request has a path, so the answer cannot know the surface and keeps
   * Iceberg's shape on every path (docs/design/0437-one-error-shape.md).
   */
  private static Row unparsable(String family, int status, String method, String path) {
    return new Row(family, status, Shape.ICEBERG, method, path, ADMIN, "application/json", null, Map.of());
  }

  private static Row row(String family, int status, String method, String path, String token) {
    return row(family, status, method, path, token, "application/json", null, Map.of());
  }

  private static Row row(String family, int status, String method, String path, String token, String type,
      String body, Map<String, String> headers) {
    Shape shape = family.equals("iceberg") ? Shape.ICEBERG
        : status == 409 && family.equals("store") ? Shape.RECORD : Shape.PLAIN;
    return new Row(family, status, shape, method, path, token, type, body, headers);
  }

  @TempDir static Path dir;
  LetheServer server;

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "    store:\n      read: [team]\n")
        + principal("admin", "    read: [\"*\"]\n    write: [\"*\"]\n"));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null, 1024,
        auth, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true", ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    assertThat(send(new Row("", 0, null, "POST", "/iceberg/v1/main/namespaces", ADMIN, "application/json",
        "{\"namespace\":[\"db\"]}", Map.of())).statusCode()).isEqualTo(200);
    assertThat(send(new Row("", 0, null, "PUT", KEY, ADMIN, "application/json", RECORD, Map.of())).statusCode())
        .isEqualTo(201);
  }

  private static String principal(String name, String grants) {
    return "  - name: " + name + "\n    token-sha256: " + ContentHash.ofUtf8(name + "-token") + "\n" + grants;
  }

  @AfterAll
  void stop() {
    server.close();
  }

  Stream<Row> rows() {
    String json = "application/json";
    return Stream.of(
        row("store", 401, "GET", KEY, null),
        row("store", 401, "GET", KEY, "Bearer wrong"),
        row("store", 403, "PUT", KEY, READER, json, RECORD, Map.of()),
        row("store", 404, "GET", "/store/v1/records/team/c/absent", ADMIN),
        row("store", 404, "GET", "/store/v1/nothing-here", ADMIN),
        row("store", 404, "PATCH", KEY, ADMIN),
        row("store", 400, "PUT", KEY, ADMIN, json, "{", Map.of()),
        row("store", 400, "GET", KEY, ADMIN, json, null, Map.of("Authorization", ADMIN, "X-Second", "x")),
        unparsable("store", 400, "GET", "/store/v1/records/team/c/%00"),
        row("store", 400, "GET", "/store/v1/records/team/c/%e2%82", ADMIN),
        unparsable("store", 400, "DELETE", "/store/v1/records/team/c/%00"),
        row("store", 409, "PUT", KEY, ADMIN, json, RECORD, Map.of("If-None-Match", "*")),
        row("store", 413, "PUT", KEY, ADMIN, json, BIG, Map.of()),
        row("store", 415, "PUT", KEY, ADMIN, "text/plain", RECORD, Map.of()),
        row("store", 431, "GET", KEY, ADMIN, json, null, Map.of("X-Big", "y".repeat(20000))),
        unparsable("store", 414, "GET", KEY + "x".repeat(20000)),
        row("api", 401, "GET", TABLES + "?deleted=true", null),
        row("api", 403, "GET", TABLES + "?deleted=true", READER),
        row("api", 404, "POST", TABLES + "/absent/undrop", ADMIN),
        row("api", 404, "GET", "/api/nothing-here", ADMIN),
        row("api", 400, "GET", TABLES + "?deleted=true&pageSize=abc", ADMIN),
        unparsable("api", 400, "GET", TABLES + "/%00"),
        row("api", 413, "DELETE", TABLES + "/t", ADMIN, json, BIG, Map.of()),
        row("api", 415, "DELETE", TABLES + "/t", ADMIN, "text/plain", "x", Map.of()),
        row("api", 431, "GET", TABLES + "?deleted=true", ADMIN, json, null, Map.of("X-Big", "y".repeat(20000))),
        row("iceberg", 401, "GET", "/iceberg/v1/main/namespaces", null),
        row("iceberg", 403, "GET", "/iceberg/v1/main/namespaces", READER),
        row("iceberg", 404, "GET", "/iceberg/v1/main/namespaces/absent", ADMIN),
        row("iceberg", 404, "GET", "/iceberg/v1/nothing/here/at/all", ADMIN),
        row("iceberg", 400, "POST", "/iceberg/v1/main/namespaces", ADMIN, json, "{", Map.of()),
        row("iceberg", 409, "POST", "/iceberg/v1/main/namespaces", ADMIN, json, "{\"namespace\":[\"db\"]}", Map.of()),
        row("iceberg", 413, "POST", "/iceberg/v1/main/namespaces", ADMIN, json, BIG, Map.of()),
        row("iceberg", 415, "POST", "/iceberg/v1/main/namespaces", ADMIN, "text/plain", "x", Map.of()),
        row("iceberg", 400, "GET", "/iceberg/v1/main/namespaces/%00", ADMIN),
        row("api", 400, "GET", "/api/%e2%82", ADMIN),
        row("ops", 401, "GET", "/metrics", null),
        row("ops", 400, "GET", "/metrics", READER, "application/json", null, Map.of("Authorization", ADMIN)),
        row("ops", 415, "POST", "/metrics", READER, "text/plain", "x", Map.of()),
        row("ops", 404, "POST", "/healthz", null),
        row("ops", 413, "POST", "/readyz", null, "application/json", BIG, Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void everyFailureAnswersItsFamilysShape(Row row) throws Exception {
    HttpResponse<String> r = send(row);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(row.status());
    assertShape(r, row.shape());
  }

  /**
   * Seeded random requests on management and store paths (bad paths, methods, bodies, content
   * types): every refusal answers {@code {code, type, message}}, never a 500.
   */
  @Test
  void randomBadRequestsOnManagementAndStorePathsAnswerThePlainShape() throws Exception {
    Random random = new Random(437);
    String[] prefixes = {"/store/v1/records/team/c/", "/store/v1/", "/store/v1/blobs/", "/store/v1/records/",
        TABLES + "/", "/api/metalakes/", "/api/", "/store/"};
    String[] methods = {"GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"};
    String[] segments = {"k", "t", "..", "%2F", "%25", "a%20b", "%e2%82", "undrop", "purge", "x".repeat(300), "",
        "%C3%A9", "{ns}", ";x=1", "~", "peers", "collect"};
    String[] bodies = {null, "", "{", "[]", "{\"kind\":1}", "null", "{\"a\":1,\"a\":2}", RECORD, BIG, "\"\\ud800\""};
    String[] types = {"application/json", "text/plain", "application/x-www-form-urlencoded", "application/merge+json"};
    String[] tokens = {null, ADMIN, READER, "Bearer nope", "Basic abc"};
    for (int i = 0; i < 300; i++) {
      StringBuilder path = new StringBuilder(prefixes[random.nextInt(prefixes.length)]);
      for (int s = random.nextInt(4); s > 0; s--) {
        path.append(segments[random.nextInt(segments.length)]).append(s > 1 ? "/" : "");
      }
      if (random.nextInt(4) == 0) {
        path.append("?pageSize=").append(random.nextInt(3) == 0 ? "-1" : "zz");
      }
      String method = methods[random.nextInt(methods.length)];
      Row row = new Row("random", 0, Shape.PLAIN, method, path.toString(), tokens[random.nextInt(tokens.length)],
          types[random.nextInt(types.length)], method.equals("GET") || method.equals("HEAD") ? null
              : bodies[random.nextInt(bodies.length)], Map.of());
      HttpResponse<String> r;
      try {
        r = send(row);
      } catch (IllegalArgumentException unsendable) {
        continue; // java.net.http refuses this URI itself: nothing reached the server
      }
      assertThat(r.statusCode()).as(row + " " + r.body()).isLessThan(500);
      if (r.statusCode() >= 400 && !method.equals("HEAD")) {
        assertThat(r.statusCode()).as(row.toString()).isNotEqualTo(0);
        assertShape(r, Shape.PLAIN);
      }
    }
  }

  private static void assertShape(HttpResponse<String> r, Shape shape) throws Exception {
    String what = r.request().method() + " " + r.request().uri() + " -> " + r.statusCode() + " " + r.body();
    assertThat(r.headers().firstValue("Content-Type").orElse("")).as(what).startsWith("application/json");
    JsonNode body = JSON.readTree(r.body());
    if (shape == Shape.RECORD) {
      assertThat(body.path("key").asText("")).as(what).isNotBlank();
      assertThat(body.path("revision").isObject()).as(what).isTrue();
      return;
    }
    JsonNode error = shape == Shape.ICEBERG ? body.path("error") : body;
    assertThat(error.path("code").isInt()).as(what).isTrue();
    assertThat(error.path("code").asInt()).as(what).isEqualTo(r.statusCode());
    assertThat(error.path("type").asText("")).as(what).isNotBlank();
    assertThat(error.path("message").asText("")).as(what).isNotBlank().doesNotContain("\n");
    if (shape == Shape.PLAIN) {
      assertThat(body.has("error")).as(what).isFalse();
    }
  }

  private HttpResponse<String> send(Row row) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + row.path()))
        .method(row.method(), row.body() == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(row.body()));
    if (row.contentType() != null) {
      b.header("Content-Type", row.contentType());
    }
    if (row.token() != null) {
      b.header("Authorization", row.token());
    }
    row.headers().forEach(b::header);
    // a client per request: a refusal closes its connection (413, 431, 401), none is reused after it
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
