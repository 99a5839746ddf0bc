package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfigLoader;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import dev.lethe.store.jdbc.JdbcStore;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which store a server serves ({@code lethe.store.*}), its clock, and who may use it with auth on. */
class StoreServerConfigTest {

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();

  @AfterEach
  void drop() throws Exception {
    databases.close();
  }

  private LetheServer start(Map<String, String> props, Path authFile) {
    Map<String, String> all = new HashMap<>(props);
    all.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    return LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, authFile, all));
  }

  private static final String DRAFT = "{\"body\":{\"text\":\"v\"}}";

  @Test
  void withNoStoreKeysTheServerServesFileStoreUnderTheDataDirectory() throws Exception {
    try (LetheServer server = start(Map.of(), null)) {
      ServerHttp http = new ServerHttp(server);
      assertThat(http.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of()).statusCode()).isEqualTo(201);
      assertThat(dir.resolve("store/n/c/r.json")).exists();
      assertThat(server.storeUri()).isEqualTo("http://127.0.0.1:" + server.port() + "/store/v1");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aJdbcStoreUriServesThatDatabase(String backend) throws Exception {
    String url = databases.create(backend, dir);
    try (LetheServer server = start(Map.of(ConfigKeys.STORE_URI, url, ConfigKeys.STORE_ANCESTOR_CAP, "5"), null)) {
      ServerHttp http = new ServerHttp(server);
      HttpResponse<String> put = http.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of());
      assertThat(put.statusCode()).isEqualTo(201);
      assertThat(http.send("GET", "/store/v1", null, Map.of()).body()).contains("\"ancestorCap\":5");
      // another process on the same database sees the same record
      try (JdbcStore direct = JdbcStore.open(url, 1, 5, Clock.systemUTC())) {
        assertThat(direct.get(new RecordKey("n", "c", "r"))).contains(new RecordJson().parse(put.body()));
      }
    }
  }

  @Test
  void theTestingClockFileSetsTheStoresNow() throws Exception {
    Path clock = dir.resolve("clock");
    Files.writeString(clock, "1767225600000");
    try (LetheServer server = start(Map.of(ConfigKeys.STORE_TESTING_CLOCK_FILE, clock.toString()), null)) {
      ServerHttp http = new ServerHttp(server);
      HttpResponse<String> put = http.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of());
      assertThat(new RecordJson().parse(put.body()).meta().created()).isEqualTo(1767225600000L);
      Files.writeString(clock, "1767225660000");
      HttpResponse<String> del = http.send("DELETE", "/store/v1/records/n/c/r", null, Map.of());
      assertThat(new RecordJson().parse(del.body()).deletedAt()).isEqualTo(1767225660000L);
    }
  }

  @Test
  void badStoreKeysStopTheServerBeforeItStartsNamingTheKeyButNotThePassword() {
    for (Map<String, String> bad : java.util.List.of(
        Map.of(ConfigKeys.STORE_URI, "s3://Bad_Bucket/x"),
        Map.of(ConfigKeys.STORE_URI, "s3://bucket/x?endpoint=ftp://x"),
        Map.of(ConfigKeys.STORE_URI, "ftp://bucket/x"),
        Map.of(ConfigKeys.STORE_URI, "jdbc:sqlite:/x?password=hunter2"),
        Map.of(ConfigKeys.STORE_URI, "file:"),
        Map.of(ConfigKeys.STORE_ANCESTOR_CAP, "0"),
        Map.of(ConfigKeys.STORE_POOL_SIZE, "many"))) {
      assertThatThrownBy(() -> ServerConfigLoader.load(bad, Map.of(), null))
          .as(bad.toString())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("lethe.store.")
          .hasMessageNotContaining("hunter2");
    }
    Path file = dir.resolve("lethe.yaml");
    assertThatThrownBy(() -> {
      Files.writeString(file, "lethe:\n  store:\n    ur: file:/x\n");
      ServerConfigLoader.load(Map.of(), Map.of(), file);
    }).isInstanceOf(ConfigException.class).hasMessageContaining("unknown key lethe.store.ur");
    assertThat(ServerConfigLoader.load(Map.of(), Map.of("LETHE_STORE_URI", "jdbc:h2:mem:x"), null)
        .properties()).containsEntry(ConfigKeys.STORE_URI, "jdbc:h2:mem:x");
  }

  @Test
  void withAuthOnEveryStoreRouteNeedsATokenAndAPrincipalWithoutStoreGrantsIsRefused() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token") + "\n    read: [main]\n    write: [main]\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n",
        StandardCharsets.UTF_8);
    try (LetheServer server = start(Map.of(), auth)) {
      ServerHttp http = new ServerHttp(server);
      HttpResponse<String> none = http.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of());
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"lethe\"");
      assertThat(none.body()).startsWith("{\"code\":401,");
      HttpResponse<String> wrong = http.send("GET", "/store/v1/records/n", null, Map.of("Authorization", "Bearer nope"));
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.body()).doesNotContain("nope");
      HttpResponse<String> reader = http.send("PUT", "/store/v1/records/n/c/r", DRAFT,
          Map.of("Authorization", "Bearer reader-token"));
      assertThat(reader.statusCode()).isEqualTo(403);
      assertThat(reader.body()).doesNotContain("reader-token");
      assertThat(server.store().getRaw(new RecordKey("n", "c", "r"))).isEmpty();
      assertThat(http.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of("Authorization", "Bearer admin-token"))
          .statusCode()).isEqualTo(201);
    }
  }
}
