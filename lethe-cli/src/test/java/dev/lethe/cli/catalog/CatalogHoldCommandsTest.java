package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lethe catalog hold|release|holds} against a real server with auth
 * (docs/design/0444-legal-holds.md): an admin holds (exit 0, the hold printed), the held table's
 * purge is 409, a writer cannot hold or release (exit 1, one stderr line), a bad {@code --until}
 * exits 2 with one stderr line and stores nothing, release frees the purge and stays in the audit.
 */
class CatalogHoldCommandsTest {
  private static final String ADMIN = "admin-token-0123456789";
  private static final String WRITER = "writer-token-0123456789";
  private static final String DROP_PURGE = "/iceberg/v1/main/namespaces/sales/tables/orders?purgeRequested=true";
  @TempDir Path dir;
  private LetheServer server;
  private String url;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private static String sha256(String token) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  @BeforeEach
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: \"" + sha256(ADMIN) + "\"\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: writer\n    token-sha256: \"" + sha256(WRITER) + "\"\n    read: [main]\n    write: [main]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of()));
    url = "http://127.0.0.1:" + server.port();
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}").statusCode()).isEqualTo(200);
    assertThat(send("POST", "/iceberg/v1/main/namespaces/sales/tables", "{\"name\":\"orders\","
        + "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}").statusCode()).isEqualTo(200);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", "Bearer " + ADMIN)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private int run(String token, String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    String[] all = new String[args.length + 5];
    all[0] = "catalog";
    all[1] = args[0];
    all[2] = "--server";
    all[3] = url;
    all[4] = "--token";
    all[5] = token;
    System.arraycopy(args, 1, all, 6, args.length - 1);
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(all);
  }

  /** The command failed with this exit code and exactly one stderr line naming it. */
  private void assertOneLine(int exit, int expected, String command) {
    assertThat(exit).as(err.toString()).isEqualTo(expected);
    assertThat(err.toString().lines().count()).as(err.toString()).isEqualTo(1);
    assertThat(err.toString()).startsWith("lethe catalog " + command + ":");
  }

  @Test
  void anAdminHoldsThePurgeIsRefusedAndReleaseFreesIt() throws Exception {
    long until = System.currentTimeMillis() + 86_400_000L;
    assertOneLine(run(WRITER, "hold", "table", "sales.orders", "--reason", "litigation 42"), 1, "hold");
    assertThat(err.toString()).contains("not an admin");

    assertThat(run(ADMIN, "hold", "table", "sales.orders", "--reason", "litigation 42", "--until", String.valueOf(until)))
        .as(err.toString()).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString()).contains("KIND").contains("EXPIRES_AT").contains("sales.orders").contains("admin")
        .contains("litigation 42").contains(Instant.ofEpochMilli(until).toString());
    assertThat(out.toString().lines().count()).as(out.toString()).isEqualTo(2);
    assertThat(run(ADMIN, "hold", "namespace", "sales", "--reason", "audit", "--until", "2999-01-31T00:00:00Z"))
        .as(err.toString()).isZero();
    assertThat(out.toString()).contains("namespace").contains("2999-01-31T00:00:00Z").contains("audit");

    assertThat(run(WRITER, "holds")).as(err.toString()).isZero();
    assertThat(out.toString().lines().count()).as(out.toString()).isEqualTo(3);
    assertThat(out.toString()).contains("sales.orders").contains("litigation 42").contains("audit");

    HttpResponse<String> drop = send("DELETE", DROP_PURGE, null);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(409);
    assertThat(drop.body()).contains("legal hold").contains("placed by admin");

    assertOneLine(run(WRITER, "release", "table", "sales.orders"), 1, "release");
    assertThat(run(ADMIN, "release", "table", "sales.orders")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("sales.orders").contains("litigation 42");
    assertThat(out.toString().lines().skip(1).findFirst().orElseThrow()).as("released by admin").contains("admin")
        .doesNotContain(" - ");
    assertOneLine(run(ADMIN, "release", "table", "sales.orders"), 1, "release");
    assertThat(err.toString()).contains("No hold");

    assertThat(run(ADMIN, "holds")).as(err.toString()).isZero();
    assertThat(out.toString()).doesNotContain("sales.orders").contains("audit");
    assertThat(run(ADMIN, "holds", "--released")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("sales.orders").contains("RELEASED_BY");
    assertThat(out.toString().lines().count()).as(out.toString()).isEqualTo(3);

    assertThat(send("DELETE", DROP_PURGE, null).statusCode()).as("the namespace hold still covers it").isEqualTo(409);
    assertThat(run(ADMIN, "release", "namespace", "sales")).as(err.toString()).isZero();
    assertThat(send("DELETE", DROP_PURGE, null).statusCode()).isEqualTo(204);
  }

  @Test
  void aNamespaceLevelWithADotIsNamedByTheJsonArraySpellingInHoldReleaseAndHolds() throws Exception {
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"x.y\"]}").statusCode()).isEqualTo(200);

    assertThat(run(ADMIN, "hold", "table", "[\"x.y\",\"t\"]", "--reason", "exact")).as(err.toString()).isZero();
    assertThat(out.toString()).as("printed in the same spelling").contains("[\"x.y\",\"t\"]");
    assertThat(run(ADMIN, "hold", "namespace", "[\"x.y\"]", "--reason", "whole")).as(err.toString()).isZero();
    assertThat(run(ADMIN, "holds")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("[\"x.y\",\"t\"]").contains("[\"x.y\"]").contains("exact").contains("whole");
    HttpResponse<String> stored = send("GET", "/api/metalakes/default/catalogs/main/holds", null);
    assertThat(stored.body()).as("one level x.y, not x / y").contains("\"namespace\":[\"x.y\"]")
        .doesNotContain("\"namespace\":[\"x\",\"y\"]");

    assertThat(run(ADMIN, "release", "table", "[\"x.y\",\"t\"]")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("[\"x.y\",\"t\"]").contains("exact");
    assertThat(run(ADMIN, "release", "namespace", "[\"x.y\"]")).as(err.toString()).isZero();
    assertThat(run(ADMIN, "holds")).as(err.toString()).isZero();
    assertThat(out.toString().lines().count()).as("only the header: " + out).isEqualTo(1);
    assertThat(run(ADMIN, "holds", "--released")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("[\"x.y\",\"t\"]").contains("[\"x.y\"]");
  }

  /** The holds not released, one {@code kind namespace-levels name} line each, from the server. */
  private List<String> placedHolds() throws Exception {
    HttpResponse<String> listed = send("GET", "/api/metalakes/default/catalogs/main/holds", null);
    assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
    List<String> holds = new ArrayList<>();
    for (JsonNode h : new ObjectMapper().readTree(listed.body()).path("holds")) {
      holds.add(h.path("kind").asText() + " " + h.path("namespace") + " " + h.path("name").asText(""));
    }
    return holds.stream().sorted().toList();
  }

  @Test
  void releaseOfAMultiLevelNamespaceReleasesExactlyThoseLevelsOnARealServer() throws Exception {
    for (String ns : new String[] {"[\"sales\",\"eu\"]", "[\"sales.eu\"]", "[\"a\"]", "[\"a\",\"b.c\"]"}) {
      HttpResponse<String> created = send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":" + ns + "}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    }
    // placed over HTTP with the exact levels, so the CLI's release alone is under test
    for (String body : new String[] {
        "{\"kind\":\"table\",\"namespace\":[\"sales\",\"eu\"],\"name\":\"orders\",\"reason\":\"two levels\"}",
        "{\"kind\":\"table\",\"namespace\":[\"sales.eu\"],\"name\":\"orders\",\"reason\":\"one level\"}",
        "{\"kind\":\"table\",\"namespace\":[\"a\",\"b.c\"],\"name\":\"t\",\"reason\":\"dot in the second\"}",
        "{\"kind\":\"namespace\",\"namespace\":[\"sales\",\"eu\"],\"reason\":\"whole\"}",
        "{\"kind\":\"namespace\",\"namespace\":[\"sales.eu\"],\"reason\":\"whole, one level\"}"}) {
      HttpResponse<String> placed = send("PUT", "/api/metalakes/default/catalogs/main/holds", body);
      assertThat(placed.statusCode()).as(placed.body()).isEqualTo(200);
    }

    assertThat(run(ADMIN, "release", "table", "sales.eu.orders")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("two levels").doesNotContain("one level");
    assertThat(placedHolds()).containsExactly("namespace [\"sales\",\"eu\"] ", "namespace [\"sales.eu\"] ",
        "table [\"a\",\"b.c\"] t", "table [\"sales.eu\"] orders");

    assertThat(run(ADMIN, "release", "table", "[\"a\",\"b.c\",\"t\"]")).as(err.toString()).isZero();
    assertThat(run(ADMIN, "release", "namespace", "sales.eu")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("whole").doesNotContain("one level");
    assertThat(placedHolds()).containsExactly("namespace [\"sales.eu\"] ", "table [\"sales.eu\"] orders");

    assertOneLine(run(ADMIN, "release", "table", "a.b.c.t"), 1, "release");
    assertThat(err.toString()).as("a.b.c is three levels, not a / b.c").contains("No hold");
    assertThat(run(ADMIN, "release", "table", "[\"sales.eu\",\"orders\"]")).as(err.toString()).isZero();
    assertThat(run(ADMIN, "release", "namespace", "[\"sales.eu\"]")).as(err.toString()).isZero();
    assertThat(placedHolds()).isEmpty();
  }

  @Test
  void aBadUntilOrArgumentExits2WithOneLineAndStoresNothing() throws Exception {
    for (String bad : new String[] {"tomorrow", "2001-01-01T00:00:00Z", "1", "99999999999999999999",
        "+1000000000-01-01T00:00:00Z", "-5", ""}) {
      int exit = run(ADMIN, "hold", "table", "sales.orders", "--reason", "r", "--until", bad);
      assertOneLine(exit, 2, "hold");
      assertThat(out.toString()).as(bad).isEmpty();
    }
    assertThat(run(ADMIN, "hold", "table", "sales.orders")).as("--reason is required").isEqualTo(2);
    assertThat(run(ADMIN, "hold", "table", "sales.orders", "--reason", " ")).as(err.toString()).isEqualTo(2);
    assertThat(run(ADMIN, "hold", "bucket", "sales.orders", "--reason", "r")).isEqualTo(2);
    assertThat(run(ADMIN, "hold", "table", "orders", "--reason", "r")).isEqualTo(2);
    assertThat(run(ADMIN, "release", "view", "sales.v")).isEqualTo(2);

    assertThat(run(ADMIN, "holds", "--released")).as(err.toString()).isZero();
    assertThat(out.toString().lines().count()).as("only the header: " + out).isEqualTo(1);
    assertThat(send("DELETE", DROP_PURGE, null).statusCode()).isEqualTo(204);
  }
}
