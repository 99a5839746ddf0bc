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
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Random names, paths, JSON bodies and headers against the Iceberg REST and management routes of a
 * real in-process server over real HTTP, sent byte for byte on a socket (H2, or the backend named by
 * {@code lethe.test.random.backend}: {@code postgresql}, {@code mariadb}). For every request: never a
 * 5xx; every 4xx (but to {@code HEAD}) carries a JSON error in its route's shape; and a refused
 * request leaves every catalog row and every warehouse file exactly as it was.
 *
 * <p>Seeded: the seed is printed; replay with {@code -Dlethe.test.random.seed=<seed>}, run longer
 * with {@code -Dlethe.test.random.tries=<n>} (default 400). A plain generator over
 * {@link java.util.Random}: the cases are the same kinds a property-testing library would draw.
 */
class RandomRequestsPropertyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path dir;
  private static BackendServer s;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("lethe-random-requests");
    s = new BackendServer(System.getProperty("lethe.test.random.backend", "h2"), dir);
    s.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}");
    s.send("POST", "/iceberg/v1/main/namespaces/db/tables", table("\"t\""));
    s.send("POST", "/iceberg/v1/main/namespaces/db/views", view("\"v\""));
  }

  @AfterAll
  static void stop() throws Exception {
    if (s != null) {
      s.close();
    }
  }

  record Request(String method, String path, String body, List<String> headers) {}

  @Test
  void noRequestIsA5xxAndARefusedOneChangesNothing() throws Exception {
    long seed = Long.getLong("lethe.test.random.seed", System.nanoTime());
    int tries = Integer.getInteger("lethe.test.random.tries", 400);
    System.out.println("RandomRequestsPropertyTest seed=" + seed + " (replay with -Dlethe.test.random.seed=" + seed + ")");
    Gen g = new Gen(new Random(seed));
    for (int i = 0; i < tries; i++) {
      Request r = g.request();
      check("seed " + seed + " try " + i, r);
    }
  }

  private static void check(String where, Request r) throws Exception {
    String before = s.snapshot();
    BackendServer.Raw response = s.sendRaw(r.method(), r.path(), r.body(), r.headers());
    int status = response.status();
    assertThat(status).as("%s: %s %s %s -> %s", where, r.method(), r.path(), r.body(), response.body()).isLessThan(500);
    if (status >= 400) {
      if (!r.method().equals("HEAD")) {
        assertThat(response.headers().get("Content-Type")).as("%s: %s %s -> %s %s %s", where, r.method(), r.path(), status,
            response.headers(), response.body()).startsWith("application/json");
        JsonNode body = JSON.readTree(response.body());
        JsonNode error = body.has("error") ? body.get("error") : body;
        assertThat(error.get("code").asInt()).as(response.body()).isEqualTo(status);
        assertThat(error.get("message").asText()).as(response.body()).isNotBlank();
      }
      assertThat(s.snapshot()).as("%s: %s %s %s -> %s", where, r.method(), r.path(), r.body(), status).isEqualTo(before);
    }
  }

  // ---- generators ----

  /** Draws requests from one seeded {@link Random}. */
  private static final class Gen {
    private final Random rnd;

    Gen(Random rnd) {
      this.rnd = rnd;
    }

    @SafeVarargs
    private <T> T oneOf(Supplier<T>... choices) {
      return choices[rnd.nextInt(choices.length)].get();
    }

    private String of(String... values) {
      return values[rnd.nextInt(values.length)];
    }

    /** Any chars (all of UTF-16, surrogates included), length in [min, max]. */
    private String anyChars(int min, int max) {
      int n = min + rnd.nextInt(max - min + 1);
      StringBuilder b = new StringBuilder(n);
      for (int i = 0; i < n; i++) {
        b.append(rnd.nextInt(4) == 0 ? (char) rnd.nextInt(0x10000) : (char) (0x20 + rnd.nextInt(0x5f)));
      }
      return b.toString();
    }

    private String charsFrom(String alphabet, int min, int max) {
      int n = min + rnd.nextInt(max - min + 1);
      StringBuilder b = new StringBuilder(n);
      for (int i = 0; i < n; i++) {
        b.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
      }
      return b.toString();
    }

    Request request() {
      return new Request(of("GET", "HEAD", "POST", "DELETE", "PUT"), path(), body(), headers());
    }

    /** A name as a client means it: plain, unicode, spaces, '+', '%', dots, separators, surrogates, long. */
    String name() {
      return oneOf(
          () -> of("db", "t", "v", "missing", "my ns", "a+b", "t ", ".", "..", "", "a\u001fb", "a/b", "\u65e5",
              "a\u0000b", "a\ud800b", "\ud83d\ude00"),
          () -> anyChars(0, 12),
          () -> charsFrom("abc", 250, 250) + "xyzuvw",
          () -> charsFrom("\u00e9\u65e5", 250, 260));
    }

    /** A raw path segment: a name encoded as 1.11 (+) or 1.12 (%20) would, or raw percent bytes. */
    String segment() {
      return oneOf(
          () -> URLEncoder.encode(name(), StandardCharsets.UTF_8),
          () -> URLEncoder.encode(name(), StandardCharsets.UTF_8).replace("+", "%20"),
          () -> {
            int n = 1 + rnd.nextInt(6);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < n; i++) {
              b.append(String.format("%%%02X", rnd.nextInt(256)));
            }
            return b.toString();
          },
          () -> of("db", "db%1Fx", "%ED%A0%80", "%C0%AF", "%", "%zz", "+", "a%2Fb", "t", "v"));
    }

    String query() {
      return oneOf(() -> "", () -> "?" + of("pageSize", "pageToken", "parent", "purgeRequested", "snapshots", "deleted",
          "warehouse", "namespace", "state", "limit", "name") + "=" + segment());
    }

    String path() {
      Supplier<String> iceberg = () -> "/iceberg/v1/" + of("main", "main", "main", "nope") + "/namespaces/" + segment()
          + of("", "/properties", "/tables", "/tables/{x}", "/tables/{x}/metrics", "/register", "/register-view",
              "/views", "/views/{x}").replace("{x}", segment()) + query();
      Supplier<String> icebergRoot = () -> "/iceberg/v1/main"
          + of("/namespaces", "/tables/rename", "/views/rename", "/transactions/commit") + query();
      Supplier<String> config = () -> "/iceberg/v1/config" + query();
      Supplier<String> management = () -> "/api/metalakes/" + of("default", "nope") + "/catalogs/" + of("main", "nope")
          + "/schemas/" + segment()
          + of("/tables", "/tables/{x}", "/tables/{x}/undrop", "/tables/{x}/purge").replace("{x}", segment()) + query();
      Supplier<String> cleanups = () -> "/api/metalakes/default/catalogs/main/cleanups" + query();
      return oneOf(iceberg, iceberg, iceberg, icebergRoot, config, management, cleanups);
    }

    String body() {
      Supplier<String> quoted = () -> quote(name());
      return oneOf(
          () -> null,
          () -> {
            String n = quoted.get();
            return "{\"namespace\":[" + n + "],\"properties\":{" + n + ":" + n + "}}";
          },
          () -> table(quoted.get()),
          () -> view(quoted.get()),
          () -> "{\"name\":" + quoted.get() + ",\"metadata-location\":" + quote(dir.resolve("warehouse").toString()) + "}",
          () -> {
            String n = quoted.get();
            return "{\"source\":{\"namespace\":[\"db\"],\"name\":\"t\"},\"destination\":{\"namespace\":[" + n
                + "],\"name\":" + n + "}}";
          },
          () -> {
            String n = quoted.get();
            return "{\"updates\":{" + n + ":\"1\"},\"removals\":[" + n + "]}";
          },
          () -> {
            String n = quoted.get();
            return "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{" + n + ":" + n + "}}]}";
          },
          () -> "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":" + quoted.get() + "}]}",
          () -> "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"db\"],\"name\":" + quoted.get()
              + "},\"requirements\":[],\"updates\":[]}]}",
          () -> "{\"namespace\":[" + quoted.get() + "],\"namespace\":[\"dup\"]}",
          () -> "{\"namespace\":[" + quoted.get() + "]} trailing",
          () -> anyChars(0, 40),
          () -> of("{}", "[]", "null", "1", "\"x\"", "{\"namespace\":[]}", "{\"name\":\"t\"}", "{\"namespace\":null}",
              "{\"namespace\":[\"a\"],\"properties\":{\"k\":null}}", "[".repeat(2000), "{\"a\":".repeat(100)));
    }

    List<String> headers() {
      List<String> flat = new ArrayList<>();
      int n = rnd.nextInt(4);
      for (int i = 0; i < n; i++) {
        flat.add(of("Authorization", "X-Lethe-Async-Purge", "X-Gravitino-Async-Purge", "Content-Type", "Accept",
            "X-Iceberg-Access-Delegation"));
        flat.add(oneOf(() -> charsFrom(" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~", 0, 20),
            () -> of("true", "false", "TRUE", "Bearer x", "", "yes")));
      }
      return flat;
    }
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
