package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code lethe catalog deleted} and {@code lethe catalog undrop} against a real server (in process,
 * embedded H2, soft delete on).
 */
class CatalogSoftDeleteCommandsTest {
  private static final String TABLE_BODY = "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";

  @TempDir Path dir;
  private LetheServer server;
  private String token;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  private void start(long retentionMs, Path authFile) throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, authFile, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true",
            ConfigKeys.SOFT_DELETE_RETENTION_MS, String.valueOf(retentionMs),
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}").statusCode()).isEqualTo(200);
    createTable("sales", "orders");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private void createTable(String ns, String name) throws Exception {
    HttpResponse<String> r = send("POST", "/iceberg/v1/main/namespaces/" + ns + "/tables", String.format(TABLE_BODY, name));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private String tableUuid(String ns, String name) throws Exception {
    HttpResponse<String> r = send("GET", "/iceberg/v1/main/namespaces/" + ns + "/tables/" + name, null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new ObjectMapper().readTree(r.body()).get("metadata").get("table-uuid").asText();
  }

  private void drop(String ns, String name) throws Exception {
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/" + ns + "/tables/" + name + "?purgeRequested=true", null)
        .statusCode()).isEqualTo(204);
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  private void assertOneErrorLine(String... parts) {
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().strip().lines()).hasSize(1);
    assertThat(err.toString()).contains(parts);
  }

  @Test
  void deletedShowsAHeldTablePastItsDeadlineRecoverableAndHeld() throws Exception {
    start(0, null); // past the deadline at once
    HttpResponse<String> hold = send("PUT", "/api/metalakes/default/catalogs/main/holds",
        "{\"kind\":\"table\",\"namespace\":[\"sales\"],\"name\":\"orders\",\"reason\":\"case 9\"}");
    assertThat(hold.statusCode()).as(hold.body()).isEqualTo(200);
    drop("sales", "orders");

    int code = run("catalog", "deleted", "--catalog", "main", "sales", "--server", base());

    assertThat(code).as(err.toString()).isZero();
    String[] row = out.toString().split("\n")[1].split(" +");
    assertThat(row[4]).as(out.toString()).isEqualTo("held");
    assertThat(row).endsWith("anonymous", "true", "true", "DELETED", "-");
  }

  @Test
  void deletedListsTheDroppedTableWithItsTimeLeft() throws Exception {
    start(86_400_000L, null);
    createTable("sales", "kept");
    drop("sales", "orders");

    int code = run("catalog", "deleted", "--catalog", "main", "sales", "--server", base());

    assertThat(code).as(err.toString()).isZero();
    String[] lines = out.toString().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0].split(" +")).containsExactly(CatalogDeletedCommand.HEADER);
    String[] row = lines[1].split(" +");
    assertThat(row[0]).isEqualTo("orders");
    assertThat(row[2]).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(row[4] + " " + row[5]).isIn("23h 59m", "24h 0m");
    assertThat(row).endsWith("anonymous", "true", "true", "DELETED", "-");
    assertThat(out.toString()).doesNotContain("kept").doesNotContain("metadata");
  }

  @Test
  void undropRestoresTheSameTableAndTheListEmpties() throws Exception {
    start(86_400_000L, null);
    String uuid = tableUuid("sales", "orders");
    drop("sales", "orders");
    assertThat(send("HEAD", "/iceberg/v1/main/namespaces/sales/tables/orders", null).statusCode()).isEqualTo(404);

    int code = run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base());

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString().strip()).matches("undropped: main\\.sales\\.orders \\(entity id [^ ]+\\)");
    assertThat(err.toString()).isEmpty();
    assertThat(tableUuid("sales", "orders")).isEqualTo(uuid);
    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base())).isZero();
    assertThat(out.toString().strip().lines()).hasSize(1);
  }

  @Test
  void undropOfAnUnknownTableIsExit1WithOneLine() throws Exception {
    start(86_400_000L, null);

    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "nope", "--server", base())).isEqualTo(1);
    assertOneErrorLine("lethe catalog undrop: ", "no retained deletion of sales.nope");
  }

  @Test
  void undropOfALiveTableOrAgainAfterARestoreIsExit1() throws Exception {
    start(86_400_000L, null);

    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base())).isEqualTo(1);
    assertOneErrorLine("is live, not dropped");
    drop("sales", "orders");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base())).isZero();
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base())).isEqualTo(1);
    assertOneErrorLine("is live, not dropped");
  }

  @Test
  void pastTheDeadlineTheListSaysExpiredAndUndropIsExit1With410sMessage() throws Exception {
    start(0, null);
    drop("sales", "orders");

    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base())).isZero();
    assertThat(out.toString().strip().lines().skip(1).findFirst().orElseThrow().split(" +"))
        .contains("expired").endsWith("false", "DELETED", "-");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base())).isEqualTo(1);
    assertOneErrorLine("lethe catalog undrop: Cannot undrop sales.orders: its retention deadline passed at");
  }

  @Test
  void aPurgeOwningTheRecordShowsItsJobStateAndUndropIsRefused() throws Exception {
    start(86_400_000L, null);
    drop("sales", "orders");
    assertThat(send("POST", "/api/metalakes/default/catalogs/main/schemas/sales/tables/orders/purge", null).statusCode())
        .isEqualTo(202);

    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base())).isZero();
    assertThat(out.toString().strip().lines().skip(1).findFirst().orElseThrow().split(" +"))
        .endsWith("-", "anonymous", "true", "false", "PURGING", "PENDING");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base())).isEqualTo(1);
    assertOneErrorLine("a purge owns it (cleanup job");
  }

  @Test
  void aMultiLevelNamespaceIsGivenWithDots() throws Exception {
    start(86_400_000L, null);
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\",\"eu\"]}").statusCode()).isEqualTo(200);
    createTable("sales%1Feu", "orders");
    drop("sales%1Feu", "orders");

    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base())).isZero();
    assertThat(out.toString().strip().lines()).hasSize(1);
    assertThat(run("catalog", "deleted", "--catalog", "main", "sales.eu", "--server", base())).isZero();
    assertThat(out.toString()).contains("orders");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales.eu", "orders", "--server", base())).isZero();
    assertThat(out.toString()).startsWith("undropped: main.sales.eu.orders ");
    assertThat(send("HEAD", "/iceberg/v1/main/namespaces/sales%1Feu/tables/orders", null).statusCode()).isEqualTo(204);
  }

  @Test
  void anUnknownCatalogOrNamespaceIsExit1WithOneLine() throws Exception {
    start(86_400_000L, null);

    assertThat(run("catalog", "deleted", "--catalog", "nope", "sales", "--server", base())).isEqualTo(1);
    assertOneErrorLine("lethe catalog deleted: Catalog does not exist: nope");
    assertThat(run("catalog", "deleted", "--catalog", "main", "nope", "--server", base())).isEqualTo(1);
    assertOneErrorLine("lethe catalog deleted: Schema does not exist: nope");
    assertThat(run("catalog", "undrop", "--catalog", "main", "nope", "orders", "--server", base())).isEqualTo(1);
    assertOneErrorLine("Schema does not exist: nope");
  }

  @ParameterizedTest
  @ValueSource(strings = {"catalog undrop --catalog main sales", "catalog deleted --catalog main",
      "catalog deleted --catalog main sales extra", "catalog undrop --catalog main .. orders",
      "catalog undrop --catalog main sales ..", "catalog undrop --catalog main sales..eu orders",
      "catalog deleted --catalog main .sales", "catalog deleted --catalog .. sales", "catalog undrop --catalog main sales a/b"})
  void badArgumentsAreExit2WithOneLineAndNoRequest(String argLine) throws Exception {
    start(86_400_000L, null);
    drop("sales", "orders");

    String[] args = (argLine + " --server " + base()).split(" ");
    assertThat(run(args)).isEqualTo(2);
    assertOneErrorLine("lethe catalog ");
    assertThat(send("HEAD", "/iceberg/v1/main/namespaces/sales/tables/orders", null).statusCode()).as("still dropped").isEqualTo(404);
  }

  @Test
  void aBadServerUrlIsExit2AndAnUnreachableServerExit1() throws Exception {
    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", "not a url")).isEqualTo(2);
    assertOneErrorLine("lethe catalog deleted: invalid --server: not a url");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "t", "--server", "ftp://127.0.0.1:1")).isEqualTo(2);
    assertOneErrorLine("invalid --server");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "t", "--server", "http://127.0.0.1:1")).isEqualTo(1);
    assertOneErrorLine("lethe catalog undrop: cannot reach http://127.0.0.1:1");
  }

  @Test
  void undropNeedsWriteAccessListNeedsRead() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[main]", "[main]"));
    token = "writer-token";
    start(86_400_000L, auth);
    drop("sales", "orders");

    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base())).isEqualTo(1);
    assertOneErrorLine("lethe catalog deleted: ", "Authorization");
    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base(), "--token", "reader-token")).isZero();
    assertThat(out.toString()).contains("orders", "writer");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base(), "--token", "reader-token")).isEqualTo(1);
    assertOneErrorLine("lethe catalog undrop: ", "reader");
    assertThat(run("catalog", "undrop", "--catalog", "main", "sales", "orders", "--server", base(), "--token", "writer-token")).isZero();
  }

  private static String principal(String name, String token, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + TokenHash.sha256Hex(token) + "\n    read: " + read
        + "\n    write: " + write + "\n";
  }

  @Test
  void timeLeftIsDaysHoursMinutesOrSecondsAndExpiredPastTheDeadline() {
    long now = 1_000_000_000_000L;
    assertThat(CatalogDeletedCommand.timeLeft(now + 86_400_000L - 1, now, true, "DELETED")).isEqualTo("23h 59m");
    assertThat(CatalogDeletedCommand.timeLeft(now + 3 * 86_400_000L + 7_200_000L, now, true, "DELETED")).isEqualTo("3d 2h");
    assertThat(CatalogDeletedCommand.timeLeft(now + 250_000L, now, true, "DELETED")).isEqualTo("4m 10s");
    assertThat(CatalogDeletedCommand.timeLeft(now + 9_999L, now, true, "DELETED")).isEqualTo("9s");
    assertThat(CatalogDeletedCommand.timeLeft(now - 5, now, true, "DELETED")).as("this clock ahead of the database's").isEqualTo("0s");
    assertThat(CatalogDeletedCommand.timeLeft(now, now, false, "DELETED")).isEqualTo("expired");
    assertThat(CatalogDeletedCommand.timeLeft(now + 60_000L, now, false, "DELETED")).as("the server decides").isEqualTo("expired");
    assertThat(CatalogDeletedCommand.timeLeft(now - 1, now, false, "PURGING")).isEqualTo("expired");
    assertThat(CatalogDeletedCommand.timeLeft(now + 60_000L, now, false, "PURGING")).as("purge-now").isEqualTo("-");
  }
}
