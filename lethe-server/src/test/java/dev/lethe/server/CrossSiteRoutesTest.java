package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.config.ConfigKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * With auth off (the default), a browser page cannot write (docs/design/0421-no-cross-site-writes.md):
 * every write route of the Iceberg REST, management and store trees refuses a foreign
 * {@code Origin} with 403 and a non-JSON content type with 415, and the catalog and the store are
 * unchanged afterwards; a preflight is answered for an allowed origin only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrossSiteRoutesTest {
  private static final String ALLOWED = "http://ui.example:8080";
  private static final String BLOB = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  /** One write: method, path, body. */
  record Write(String method, String path, String body) {}

  @TempDir static Path dir;
  LetheServer server;
  ServerHttp http;
  final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0",
            ConfigKeys.ALLOWED_ORIGINS, ALLOWED + ", https://Other.Example")));
    http = new ServerHttp(server);
    assertThat(http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"ns\"]}", Map.of()).statusCode())
        .isEqualTo(200);
    http.createTable("ns", "t", Map.of());
    assertThat(http.send("PUT", "/store/v1/records/team/c/k", "{\"body\":{\"text\":\"v\"}}", Map.of()).statusCode())
        .isEqualTo(201);
  }

  @AfterAll
  void stop() {
    server.close();
  }

  List<Write> writes() {
    String ns = "/iceberg/v1/main/namespaces/ns";
    String api = "/api/metalakes/default/catalogs/main/schemas/ns/tables/t";
    return List.of(
        new Write("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"evil\"]}"),
        new Write("POST", ns + "/properties", "{\"updates\":{\"owner\":\"evil\"}}"),
        new Write("DELETE", ns, null),
        new Write("POST", ns + "/tables", String.format(ServerHttp.TABLE_BODY, "evil")),
        new Write("POST", ns + "/tables/t", "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\","
            + "\"updates\":{\"evil\":\"1\"}}]}"),
        new Write("DELETE", ns + "/tables/t?purgeRequested=true", null),
        new Write("POST", ns + "/tables/t/metrics", "{}"),
        new Write("POST", ns + "/register", "{\"name\":\"evil\",\"metadata-location\":\"/tmp/x.json\"}"),
        new Write("POST", "/iceberg/v1/main/tables/rename",
            "{\"source\":{\"namespace\":[\"ns\"],\"name\":\"t\"},\"destination\":{\"namespace\":[\"ns\"],\"name\":\"u\"}}"),
        new Write("POST", "/iceberg/v1/main/transactions/commit", "{\"table-changes\":[]}"),
        new Write("POST", ns + "/views", "{}"),
        new Write("POST", ns + "/views/v", "{}"),
        new Write("DELETE", ns + "/views/v", null),
        new Write("POST", "/iceberg/v1/main/views/rename", "{}"),
        new Write("POST", ns + "/register-view", "{}"),
        new Write("DELETE", api, null),
        new Write("POST", api + "/undrop", null),
        new Write("POST", api + "/purge", null),
        new Write("PUT", "/store/v1/records/team/c/k", "{\"body\":{\"text\":\"evil\"}}"),
        new Write("DELETE", "/store/v1/records/team/c/k", "{\"author\":\"evil\"}"),
        new Write("PUT", "/store/v1/raw/records/team/c/k", "{}"),
        new Write("POST", "/store/v1/raw/purge/team/c/k", null),
        new Write("POST", "/store/v1/raw/batch/team", "[]"),
        new Write("PUT", "/store/v1/blobs/" + BLOB, ""),
        new Write("DELETE", "/store/v1/blobs/" + BLOB, null));
  }

  HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** What a write could change: the namespaces, the table, the store's raw records and blobs. */
  String state() throws Exception {
    return send("GET", "/iceberg/v1/main/namespaces", null).body()
        + send("GET", "/iceberg/v1/main/namespaces/ns", null).body()
        + send("GET", "/iceberg/v1/main/namespaces/ns/tables/t", null).body().replaceAll("\"expires-at-ms\":\\d+", "")
        + send("GET", "/store/v1/raw/records", null).body()
        + send("GET", "/store/v1/blobs", null).body();
  }

  @Test
  void aForeignOriginIsRefused403OnEveryWriteRouteAndChangesNothing() throws Exception {
    String before = state();
    List<String> wrong = new ArrayList<>();
    String self = "http://127.0.0.1:" + server.port();
    for (Write w : writes()) {
      for (String origin : List.of("http://evil.example", self, "null")) {
        HttpResponse<String> r = send(w.method(), w.path(), w.body(), "Origin", origin, "Content-Type", "application/json");
        if (r.statusCode() != 403 || !r.body().contains("lethe.http.allowed-origins")
            || r.headers().firstValue("Access-Control-Allow-Origin").isPresent()) {
          wrong.add(w.method() + " " + w.path() + " from " + origin + ": " + r.statusCode() + " " + r.body());
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(state()).isEqualTo(before);
    HttpResponse<String> read = send("GET", "/iceberg/v1/main/namespaces", null, "Origin", "http://evil.example");
    assertThat(read.statusCode()).as("a page of another origin reads nothing either").isEqualTo(403);
    assertThat(read.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
  }

  @Test
  void aNonJsonContentTypeIsRefused415OnEveryJsonWriteRouteAndChangesNothing() throws Exception {
    String before = state();
    List<String> wrong = new ArrayList<>();
    for (Write w : writes()) {
      if (w.path().startsWith("/store/v1/blobs/") && w.method().equals("PUT")) {
        continue; // raw bytes of any type; a browser cannot PUT without a preflight, refused above
      }
      for (String type : List.of("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
          "text/plain; charset=application/json")) {
        HttpResponse<String> r = send(w.method(), w.path(), w.body() == null ? "" : w.body(), "Content-Type", type);
        if (r.statusCode() != 415 || !r.body().contains("application/json")) {
          wrong.add(w.method() + " " + w.path() + " as " + type + ": " + r.statusCode() + " " + r.body());
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(state()).isEqualTo(before);
  }

  @Test
  void jsonContentTypesAndNoneAreServed() throws Exception {
    List<String> types = List.of("application/json", "application/json; charset=utf-8", "Application/JSON",
        "application/vnd.lethe+json");
    for (int i = 0; i < types.size(); i++) {
      HttpResponse<String> r = send("PUT", "/store/v1/records/team/c/json" + i, "{\"body\":{\"text\":\"v\"}}",
          "Content-Type", types.get(i));
      assertThat(r.statusCode()).as(types.get(i) + ": " + r.body()).isEqualTo(201);
    }
    assertThat(send("PUT", "/store/v1/records/team/c/none", "{\"body\":{\"text\":\"v\"}}").statusCode())
        .as("no content type").isEqualTo(201);
    assertThat(send("PUT", "/store/v1/blobs/" + BLOB, "", "Content-Type", "application/octet-stream").statusCode())
        .as("a blob is raw bytes").isIn(200, 201);
  }

  @Test
  void anAllowedOriginGetsItsPreflightAndItsAnswersCarryCorsHeaders() throws Exception {
    HttpResponse<String> preflight = send("OPTIONS", "/iceberg/v1/main/namespaces", null, "Origin", ALLOWED,
        "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type");
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ALLOWED);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods").orElse("")).contains("POST", "DELETE");
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers")).hasValue("authorization, content-type");

    HttpResponse<String> other = send("OPTIONS", "/store/v1/records/team/c/k", null, "Origin", "https://other.example",
        "Access-Control-Request-Method", "PUT");
    assertThat(other.statusCode()).as("origins compare without case").isEqualTo(204);

    HttpResponse<String> refused = send("OPTIONS", "/iceberg/v1/main/namespaces", null, "Origin", "http://evil.example",
        "Access-Control-Request-Method", "POST");
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();

    HttpResponse<String> created = send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"from_ui\"]}",
        "Origin", ALLOWED, "Content-Type", "application/json");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    assertThat(created.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ALLOWED);
    assertThat(created.headers().firstValue("Vary")).hasValue("Origin");
  }
}
