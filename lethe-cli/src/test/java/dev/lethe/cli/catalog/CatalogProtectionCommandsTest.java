package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code lethe catalog protect|unprotect|protections} against a real server with auth
 * (docs/design/0441-drop-protection.md): an admin protects (exit 0), the protected table's drop is
 * 409, a writer cannot protect (exit 1, one stderr line), bad input exits 2, unprotect frees the drop.
 */
class CatalogProtectionCommandsTest {
  private static final String ADMIN = "admin-token-0123456789";
  private static final String WRITER = "writer-token-0123456789";
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
    return sendAs(ADMIN, method, path, body);
  }

  private HttpResponse<String> sendAs(String token, String method, String path, String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", "Bearer " + token)
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

  @Test
  void anAdminProtectsTheDropIsRefusedAndUnprotectFreesIt() throws Exception {
    assertThat(run(WRITER, "protect", "table", "sales.orders", "--reason", "audit")).as(err.toString()).isEqualTo(1);
    assertThat(err.toString()).contains("lethe catalog protect:").contains("not an admin");
    assertThat(err.toString().lines().count()).isEqualTo(1);

    assertThat(run(ADMIN, "protect", "table", "sales.orders", "--reason", "audit")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("KIND").contains("sales.orders").contains("admin").contains("audit");
    assertThat(run(WRITER, "protections")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("table").contains("sales.orders").contains("audit");

    HttpResponse<String> drop = send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/orders", null);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(409);
    assertThat(drop.body()).contains("set by admin");

    assertThat(run(ADMIN, "protect", "bucket", "sales.orders")).isEqualTo(2);
    assertThat(run(ADMIN, "protect", "table", "orders")).isEqualTo(2);
    assertThat(run(WRITER, "unprotect", "table", "sales.orders")).isEqualTo(1);
    assertThat(run(ADMIN, "unprotect", "table", "sales.orders")).as(err.toString()).isZero();
    assertThat(run(ADMIN, "unprotect", "table", "sales.orders")).as("no such protection: 404").isEqualTo(1);
    assertThat(err.toString()).contains("No protection");
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/orders", null).statusCode()).isEqualTo(204);

    assertThat(run(ADMIN, "protect", "namespace", "sales")).as(err.toString()).isZero();
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales", null).statusCode()).isEqualTo(409);
  }

  /**
   * A namespace level may contain a dot (docs/design/0441 "Exact names"): the JSON-array NAME
   * protects ["x.y"].t exactly, the dotted NAME names ["x","y"].t and warns that no such table
   * exists, and the listing prints the dotted level as a JSON array.
   */
  @Test
  void aJsonArrayNameProtectsADottedLevelAndADottedNameWarns() throws Exception {
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"x.y\"]}").statusCode()).isEqualTo(200);
    assertThat(send("POST", "/iceberg/v1/main/namespaces/x.y/tables", "{\"name\":\"t\","
        + "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}").statusCode()).isEqualTo(200);

    assertThat(run(ADMIN, "protect", "table", "x.y.t")).as(err.toString()).isZero();
    assertThat(err.toString().strip()).isEqualTo("lethe catalog protect: warning: no table x.y.t exists now "
        + "(namespace [\"x\",\"y\"]); the protection covers it if it is created");
    assertThat(sendAs(WRITER, "DELETE", "/iceberg/v1/main/namespaces/x.y/tables/t", null).statusCode())
        .as("the dotted NAME protected another table").isEqualTo(204);
    assertThat(send("POST", "/iceberg/v1/main/namespaces/x.y/tables", "{\"name\":\"t\","
        + "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}").statusCode()).isEqualTo(200);

    assertThat(run(ADMIN, "protect", "table", "[\"x.y\",\"t\"]", "--reason", "exact")).as(err.toString()).isZero();
    assertThat(err.toString()).isEmpty();
    HttpResponse<String> drop = sendAs(WRITER, "DELETE", "/iceberg/v1/main/namespaces/x.y/tables/t", null);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(409);

    assertThat(run(ADMIN, "protections")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("[\"x.y\",\"t\"]").contains("x.y.t");
    assertThat(run(ADMIN, "protect", "table", "[\"x.y\",")).isEqualTo(2);
    assertThat(run(ADMIN, "protect", "table", "[\"x.y\"]")).isEqualTo(2);

    assertThat(run(ADMIN, "unprotect", "table", "[\"x.y\",\"t\"]")).as(err.toString()).isZero();
    assertThat(sendAs(WRITER, "DELETE", "/iceberg/v1/main/namespaces/x.y/tables/t", null).statusCode()).isEqualTo(204);
    assertThat(run(ADMIN, "unprotect", "table", "x.y.t")).as(err.toString()).isZero();
  }
}
