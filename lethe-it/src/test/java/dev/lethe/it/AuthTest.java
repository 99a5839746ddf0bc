package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Auth on a real server process started with {@code LETHE_AUTH_FILE}. */
class AuthTest {
  private static final String ADMIN_TOKEN = "admin-token-7f3c9a1e5b";
  private static final String READER_TOKEN = "reader-token-2d8e4b6a0c";
  private static final String WRONG_TOKEN = "wrong-token-9a9a9a9a9a";
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static ServerFixture server;
  private static Path authFile;

  @BeforeAll
  static void start() throws Exception {
    Path auth = Files.createTempFile(Path.of(System.getProperty("lethe.it.work-dir", "target/it")), "auth-", ".yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: \"" + sha256(ADMIN_TOKEN) + "\"\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: \"" + sha256(READER_TOKEN) + "\"\n    read: [main]\n    write: []\n");
    authFile = auth;
    server = ServerFixture.start("auth", Map.of("LETHE_AUTH_FILE", auth.toString()));
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static String sha256(String token) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void readTokenLoadsButCannotCreate() throws Exception {
    TableIdentifier id = TableIdentifier.of(Namespace.of("sales"), "orders");
    try (RESTCatalog admin = server.client(ADMIN_TOKEN); RESTCatalog reader = server.client(READER_TOKEN)) {
      admin.createNamespace(id.namespace());
      admin.createTable(id, SCHEMA);

      assertThat(reader.loadTable(id).schema().asStruct()).isEqualTo(SCHEMA.asStruct());
      assertThat(reader.listTables(id.namespace())).containsExactly(id);
      assertThatThrownBy(() -> reader.createTable(TableIdentifier.of(id.namespace(), "other"), SCHEMA))
          .isInstanceOf(ForbiddenException.class);
      assertThatThrownBy(() -> reader.dropTable(id)).isInstanceOf(ForbiddenException.class);
      assertThat(admin.listTables(id.namespace())).containsExactly(id);
    }
  }

  @Test
  void missingOrUnknownTokenIs401Json() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(server.process.icebergUri() + "/v1/main/namespaces")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.body()).contains("\"code\":401");
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"lethe\"");
    HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(server.process.icebergUri() + "/v1/main/namespaces"))
        .header("Authorization", "Bearer " + WRONG_TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).doesNotContain(WRONG_TOKEN);
    assertThatThrownBy(() -> server.client(null)).isInstanceOf(NotAuthorizedException.class);
  }

  @Test
  void theLogSaysAuthIsOnAndFromWhichFile() throws Exception {
    // a new operator could not tell from the start-up log whether LETHE_AUTH_FILE had taken effect
    assertThat(server.process.log()).contains("Auth is on: 2 principal(s) from " + authFile + " (lethe.auth.file)");
  }

  @Test
  void tokensNeverAppearInTheServerLog() throws Exception {
    try (RESTCatalog reader = server.client(READER_TOKEN)) {
      reader.listNamespaces();
      assertThatThrownBy(() -> reader.createNamespace(Namespace.of("nope"))).isInstanceOf(ForbiddenException.class);
    }
    HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.process.icebergUri() + "/v1/config"))
        .header("Authorization", "Bearer " + WRONG_TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    String log = server.process.log();
    assertThat(log).contains("Lethe Iceberg REST catalog at");
    assertThat(log).doesNotContain(ADMIN_TOKEN).doesNotContain(READER_TOKEN).doesNotContain(WRONG_TOKEN);
  }
}
