package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code HEAD} needs what the {@code GET} of the same path needs, on every read route
 * (docs/design/0422-what-a-reader-is-told.md): same status for no token, a token of another
 * catalog and store namespace, and a reader; never a body.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeadNeedsWhatGetNeedsTest {
  @TempDir static Path dir;
  LetheServer server;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token")
        + "\n    read: [main]\n    store:\n      read: [team]\n"
        + "  - name: stranger\n    token-sha256: " + ContentHash.ofUtf8("stranger-token")
        + "\n    read: [other]\n    store:\n      read: [other]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    ServerHttp admin = new ServerHttp(server);
    Map<String, String> token = Map.of("Authorization", "Bearer admin-token");
    assertThat(admin.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"ns\"]}", token).statusCode())
        .isEqualTo(200);
    admin.createTable("ns", "t", token);
    assertThat(admin.send("PUT", "/store/v1/records/team/c/k", "{\"body\":{\"text\":\"v\"}}", token).statusCode())
        .isEqualTo(201);
  }

  @AfterAll
  void stop() {
    server.close();
  }

  List<String> readPaths() {
    String api = "/api/metalakes/default/catalogs/main";
    String blob = server.store().blobs().put("b".getBytes()).hash();
    return List.of("/healthz", "/metrics", "/iceberg/v1/config", "/iceberg/v1/config?warehouse=main",
        "/iceberg/v1/main/namespaces", "/iceberg/v1/main/namespaces/ns", "/iceberg/v1/main/namespaces/ns/tables",
        "/iceberg/v1/main/namespaces/ns/tables/t", "/iceberg/v1/main/namespaces/ns/views",
        api + "/cleanups", api + "/schemas/ns/tables", api + "/schemas/ns/tables/t",
        "/store/v1", "/store/v1/records", "/store/v1/records/team", "/store/v1/records/team/c",
        "/store/v1/records/team/c/k", "/store/v1/raw/records", "/store/v1/raw/records/team",
        "/store/v1/raw/records/team/c", "/store/v1/raw/records/team/c/k", "/store/v1/blobs", "/store/v1/blobs/" + blob);
  }

  HttpResponse<String> send(String method, String path, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyHeadAnswersWithItsGetsStatusAndNoBody() throws Exception {
    List<String> wrong = new ArrayList<>();
    int refused = 0;
    for (String path : readPaths()) {
      for (String token : new String[] {null, "wrong-token", "stranger-token", "reader-token"}) {
        int get = send("GET", path, token).statusCode();
        HttpResponse<String> head = send("HEAD", path, token);
        // the table and namespace HEADs are Iceberg's exists checks: 204 where GET is 200
        boolean same = head.statusCode() == get || (get == 200 && head.statusCode() == 204);
        if (!same || !head.body().isEmpty()) {
          wrong.add("HEAD " + path + " as " + token + ": " + head.statusCode() + " (GET " + get + ") body '" + head.body() + "'");
        }
        if (get == 401 || get == 403) {
          refused++;
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(refused).as("the matrix refuses someone on most routes").isGreaterThan(40);
  }
}
