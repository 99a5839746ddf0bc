package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 409 for a location held by a table of another catalog names nothing of it, through a real
 * server with auth on (docs/design/0424-what-a-reader-sees-of-paths.md); a holder in the
 * request's own catalog is still named with its root.
 */
class OtherCatalogHolderRoutesTest {
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer admin-token");
  private static final Map<String, String> WRITER = Map.of("Authorization", "Bearer writer-token");

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    databases.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aCreateIntoATableOfAnotherCatalogIs409NamingNeitherTheCatalogTheTableNorItsPath(String backend) throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: writer\n    token-sha256: " + ContentHash.ofUtf8("writer-token") + "\n    write: [main]\n");
    Path warehouse = dir.resolve("warehouse");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), databases.create(backend, dir),
        null, null, 8, warehouse.toString(), ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth,
        Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    server.catalogs().ensureCatalog("hidden", warehouse.resolve("hidden").toString(), Map.of());
    ServerHttp http = new ServerHttp(server);
    for (String catalog : new String[] {"main", "hidden"}) {
      assertThat(http.send("POST", "/iceberg/v1/" + catalog + "/namespaces", "{\"namespace\":[\"db\"]}", ADMIN)
          .statusCode()).isEqualTo(200);
    }
    String secret = location(http.send("POST", "/iceberg/v1/hidden/namespaces/db/tables",
        String.format(ServerHttp.TABLE_BODY, "secret"), ADMIN));
    String orig = location(http.send("POST", "/iceberg/v1/main/namespaces/db/tables",
        String.format(ServerHttp.TABLE_BODY, "orig"), WRITER));

    String inside = secret + "/sub";
    HttpResponse<String> refused = create(http, "x", inside);
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
    JsonNode error = ServerHttp.JSON.readTree(refused.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("AlreadyExistsException");
    String message = error.get("message").asText();
    assertThat(message).contains("a table in another catalog");
    assertThat(message.replace(inside, "")).doesNotContain("hidden").doesNotContain("secret")
        .doesNotContain(secret.replaceFirst("^file:(//)?", ""));

    // a holder of the request's own catalog keeps its name and root
    HttpResponse<String> own = create(http, "y", orig + "/sub");
    assertThat(own.statusCode()).as(own.body()).isEqualTo(409);
    assertThat(ServerHttp.JSON.readTree(own.body()).get("error").get("message").asText())
        .contains("held by live table db.orig").contains(orig.replaceFirst("^file:(//)?", ""));
  }

  private HttpResponse<String> create(ServerHttp http, String name, String location) throws Exception {
    return http.send("POST", "/iceberg/v1/main/namespaces/db/tables", String.format(
        "{\"name\":\"%s\",\"location\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,"
            + "\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}", name, location), WRITER);
  }

  private static String location(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return ServerHttp.JSON.readTree(r.body()).get("metadata").get("location").asText();
  }
}
