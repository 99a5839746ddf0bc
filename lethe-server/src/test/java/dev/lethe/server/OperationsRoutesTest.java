package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfigLoader;
import dev.lethe.store.core.ContentHash;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operational rules over real HTTP with auth on (docs/design/0410-operations.md): two
 * {@code Authorization} credentials are 400 on every route, in that route's error shape, and
 * change nothing; {@code /metrics} needs a token with a read grant unless {@code
 * lethe.metrics.public} is true; {@code /healthz} stays open.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperationsRoutesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN = "Bearer admin-token";
  private static final String READER = "Bearer reader-token";

  @TempDir static Path dir;
  LetheServer server;
  LetheServer publicMetrics;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("admin", "    read: [\"*\"]\n    write: [\"*\"]\n")
        + principal("reader", "    read: [main]\n")
        + principal("shelf", "    store:\n      read: [notes]\n")
        + principal("nobody", "    read: []\n"));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    publicMetrics = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data2"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth,
        Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0", ConfigKeys.METRICS_PUBLIC, "true")));
  }

  @AfterAll
  void stop() {
    server.close();
    publicMetrics.close();
  }

  private static String principal(String name, String grants) {
    return "  - name: " + name + "\n    token-sha256: " + ContentHash.ofUtf8(name + "-token") + "\n" + grants;
  }

  private HttpResponse<String> send(LetheServer s, String method, String path, String body, List<String> authorization)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    for (String value : authorization) {
      b.header("Authorization", value); // adds a header line per value
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String path, String body, List<String> authorization) throws Exception {
    return send(server, method, path, body, authorization);
  }

  /** The error's message, from the Iceberg shape {@code {error: {...}}} or the flat {@code {code, type, message}}. */
  private static JsonNode error(HttpResponse<String> r) throws Exception {
    JsonNode body = JSON.readTree(r.body());
    return body.has("error") ? body.get("error") : body;
  }

  /** Route families, each with its error shape: true = Iceberg {@code {error: {...}}}, false = flat. */
  private static final List<Object[]> ROUTES = List.of(
      new Object[] {"GET", "/iceberg/v1/config", true},
      new Object[] {"GET", "/iceberg/v1/main/namespaces", true},
      new Object[] {"POST", "/iceberg/v1/main/namespaces", true},
      new Object[] {"GET", "/iceberg/v1/main/no/such/route", true},
      new Object[] {"GET", "/api/metalakes/default/catalogs/main/cleanups", false},
      new Object[] {"GET", "/api/metalakes/default/catalogs/main/deleted-tables", false},
      new Object[] {"GET", "/store/v1", false},
      new Object[] {"GET", "/store/v1/records/notes", false},
      new Object[] {"GET", "/metrics", false},
      new Object[] {"GET", "/healthz", false});

  @Test
  void twoAuthorizationHeadersAre400InEachRoutesErrorShape() throws Exception {
    for (Object[] route : ROUTES) {
      String method = (String) route[0];
      String path = (String) route[1];
      boolean iceberg = (Boolean) route[2];
      for (List<String> twice : List.of(List.of(ADMIN, ADMIN), List.of(READER, ADMIN), List.of(ADMIN, "Bearer wrong"),
          List.of(ADMIN + ", " + ADMIN), List.of(READER + "," + ADMIN))) {
        HttpResponse<String> r = send(method, path, method.equals("POST") ? "{\"namespace\":[\"dup\"]}" : null, twice);
        String what = method + " " + path + " with " + twice.size() + " line(s)";
        assertThat(r.statusCode()).as(what + ": " + r.body()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).as(what).startsWith("application/json");
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.has("error")).as(what + " shape: " + r.body()).isEqualTo(iceberg);
        JsonNode e = error(r);
        assertThat(e.get("code").asInt()).isEqualTo(400);
        assertThat(e.get("message").asText()).contains("more than one Authorization credential")
            .doesNotContain("admin-token").doesNotContain("reader-token");
      }
    }
  }

  @Test
  void aRefusedDuplicateChangesNothing() throws Exception {
    HttpResponse<String> r = send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"twice\"]}", List.of(ADMIN, ADMIN));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(send("HEAD", "/iceberg/v1/main/namespaces/twice", null, List.of(ADMIN)).statusCode()).isEqualTo(404);
    // the same request with one header is served
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"twice\"]}", List.of(ADMIN)).statusCode())
        .isEqualTo(200);
  }

  @Test
  void oneCredentialWithCommasInItsParametersIsNotADuplicate() throws Exception {
    // a Digest credential has comma-separated parameters: one credential, answered 401 (not a bearer token)
    HttpResponse<String> r = send("GET", "/iceberg/v1/main/namespaces", null, List.of("Digest username=\"a\", realm=\"b\""));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
    assertThat(send("GET", "/iceberg/v1/main/namespaces", null, List.of(ADMIN)).statusCode()).isEqualTo(200);
  }

  /** Credentials a header line is built from; each is exactly one credential, whatever commas it holds. */
  private static final List<String> CREDENTIALS = List.of(ADMIN, READER, "bearer admin-token", "Bearer wrong",
      "Basic dXNlcjpwYXNz", "Digest username=\"a\", realm=\"b\"", "Bearer   admin-token  ");

  @Test
  void randomHeaderListsAre400ExactlyWhenTheyCarryMoreThanOneCredential() throws Exception {
    long seed = Long.getLong("lethe.test.random.seed", System.nanoTime());
    System.out.println("OperationsRoutesTest seed=" + seed + " (replay with -Dlethe.test.random.seed=" + seed + ")");
    Random random = new Random(seed);
    for (int i = 0; i < 150; i++) {
      Object[] route = ROUTES.get(random.nextInt(ROUTES.size()));
      if (route[0].equals("POST")) {
        continue; // reads only: the oracle below does not track what a write changed
      }
      List<String> lines = new ArrayList<>();
      int credentials = 0;
      int lineCount = random.nextInt(4);
      for (int l = 0; l < lineCount; l++) {
        int k = 1 + (random.nextInt(4) == 0 ? random.nextInt(2) + 1 : 0);
        List<String> parts = new ArrayList<>();
        for (int j = 0; j < k; j++) {
          parts.add(CREDENTIALS.get(random.nextInt(CREDENTIALS.size())));
        }
        credentials += k;
        lines.add(String.join(random.nextBoolean() ? ", " : ",", parts));
      }
      HttpResponse<String> r = send((String) route[0], (String) route[1], null, lines);
      String what = "seed " + seed + " try " + i + ": " + route[1] + " " + lines + " -> " + r.statusCode() + " " + r.body();
      assertThat(r.statusCode()).as(what).isLessThan(500);
      boolean duplicate = r.statusCode() == 400 && error(r).get("message").asText().contains("more than one Authorization");
      assertThat(duplicate).as(what).isEqualTo(credentials > 1);
    }
  }

  @Test
  void metricsNeedATokenWithAReadGrant() throws Exception {
    HttpResponse<String> none = send("GET", "/metrics", null, List.of());
    assertThat(none.statusCode()).as(none.body()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"lethe\"");
    assertThat(none.body()).doesNotContain("lethe_purge_jobs_pending");
    assertThat(send("GET", "/metrics", null, List.of("Bearer wrong")).statusCode()).isEqualTo(401);
    HttpResponse<String> nobody = send("GET", "/metrics", null, List.of("Bearer nobody-token"));
    assertThat(nobody.statusCode()).as(nobody.body()).isEqualTo(403);
    assertThat(error(nobody).get("message").asText()).contains("nobody").contains("read grant");
    for (String token : List.of(ADMIN, READER, "Bearer shelf-token")) {
      HttpResponse<String> r = send("GET", "/metrics", null, List.of(token));
      assertThat(r.statusCode()).as(token).isEqualTo(200);
      assertThat(r.body()).contains("lethe_purge_jobs_pending");
    }
    assertThat(send("GET", "/healthz", null, List.of()).statusCode()).isEqualTo(200);
  }

  @Test
  void metricsArePublicWhenTheKeySaysSoAndEverythingElseStillNeedsAToken() throws Exception {
    HttpResponse<String> r = send(publicMetrics, "GET", "/metrics", null, List.of());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("lethe_purge_jobs_pending");
    assertThat(send(publicMetrics, "GET", "/iceberg/v1/main/namespaces", null, List.of()).statusCode()).isEqualTo(401);
    assertThat(send(publicMetrics, "GET", "/healthz", null, List.of()).statusCode()).isEqualTo(200);
  }

  @Test
  void operationalKeysAreCheckedAtLoad() {
    assertThat(ServerConfigLoader.load(Map.of(ConfigKeys.METRICS_PUBLIC, "true"), Map.of(), null).properties())
        .containsEntry(ConfigKeys.METRICS_PUBLIC, "true");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.METRICS_PUBLIC, "yes"), Map.of(), null))
        .isInstanceOf(ConfigException.class).hasMessage("Invalid lethe.metrics.public: expected true or false: yes");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.SHUTDOWN_TIMEOUT_MS, "-1"), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessage("Invalid lethe.server.shutdown-timeout-ms: -1 is outside 0..3600000");
  }
}
