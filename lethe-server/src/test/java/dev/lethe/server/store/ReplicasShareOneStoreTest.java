package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ServerConfigLoader;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * Replicas on one PostgreSQL (or MariaDB) catalog with no store configured serve one store, the store of the
 * catalog database; a local store on a shared catalog is warned about; an old default store that
 * holds records stops start-up (docs/design/0434-one-store-for-every-replica.md, docs/deploy.md).
 */
class ReplicasShareOneStoreTest {

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();

  @AfterEach
  void drop() throws Exception {
    databases.close();
  }

  private static final String DRAFT = "{\"body\":{\"text\":\"v\"}}";

  private ServerConfig config(Path dataDir, String jdbcUrl, String user, Map<String, String> props) {
    Map<String, String> all = new HashMap<>(props);
    all.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    all.put(ConfigKeys.STORE_GRPC_PORT, "0");
    return new ServerConfig("127.0.0.1", 0, dataDir, jdbcUrl, user, null, 4, dir.resolve("warehouse").toString(),
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, all);
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void twoReplicasOnOneSharedCatalogWithNoStoreConfiguredServeOneStore(String backend) throws Exception {
    String url = databases.create(backend, dir);
    // the second replica names its user apart from the URL, as lethe.jdbc.user does: the store gets it too
    Matcher user = Pattern.compile("([?&])user=([^&]*)&?").matcher(url);
    String urlB = user.find() ? user.replaceFirst("$1").replaceAll("[?&]$", "") : url;
    String userB = user.find(0) ? user.group(2) : null;
    try (LetheServer a = LetheServer.start(config(dir.resolve("a"), url, null, Map.of()));
        LetheServer b = LetheServer.start(config(dir.resolve("b"), urlB, userB, Map.of()))) {
      ServerHttp httpA = new ServerHttp(a);
      ServerHttp httpB = new ServerHttp(b);

      HttpResponse<String> put = httpA.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of());
      assertThat(put.statusCode()).isEqualTo(201);
      HttpResponse<String> read = httpB.send("GET", "/store/v1/records/n/c/r", null, Map.of());
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(new RecordJson().parse(read.body())).isEqualTo(new RecordJson().parse(put.body()));

      HttpResponse<String> del = httpB.send("DELETE", "/store/v1/records/n/c/r", null, Map.of());
      assertThat(del.statusCode()).isEqualTo(200);
      assertThat(httpA.send("GET", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(404);
      HttpResponse<String> raw = httpA.send("GET", "/store/v1/raw/records/n/c/r", null, Map.of());
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(new RecordJson().parse(raw.body())).isEqualTo(new RecordJson().parse(del.body()));
      assertThat(new RecordJson().parse(raw.body()).deletedAt()).isNotNull();
    }
    // nothing was written to either replica's old default store
    assertThat(dir.resolve("a/store/n")).doesNotExist();
    assertThat(dir.resolve("b/store/n")).doesNotExist();
  }

  @Test
  void aLocalStoreOnASharedCatalogWarnsOnceNamingBoth() throws Exception {
    String url = databases.create("postgresql", dir);
    Logger log = (Logger) LoggerFactory.getLogger("dev.lethe.server");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    log.addAppender(lines);
    String local = "file:" + dir.resolve("a/store");
    try (LetheServer a = LetheServer.start(config(dir.resolve("a"), url, null, Map.of(ConfigKeys.STORE_URI, local)))) {
      assertThat(new ServerHttp(a).send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of()).statusCode()).isEqualTo(201);
      assertThat(dir.resolve("a/store/n/c/r.json")).exists();
    } finally {
      log.detachAppender(lines);
    }
    List<String> warnings = lines.list.stream().filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains(ConfigKeys.STORE_URI)).toList();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0)).contains(local).contains(url.replaceAll("(?i)(password=)[^&;]*", "$1***"));
  }

  @Test
  void anOldDefaultStoreHoldingRecordsStopsAServerMovedOntoASharedCatalog() throws Exception {
    Path data = dir.resolve("a");
    // yesterday: an H2 catalog and the default file store, which takes a record
    try (LetheServer old = LetheServer.start(config(data, null, null, Map.of()))) {
      assertThat(new ServerHttp(old).send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of()).statusCode()).isEqualTo(201);
    }
    String url = databases.create("postgresql", dir);
    String legacy = "file:" + data.toAbsolutePath().normalize().resolve("store");
    assertThatThrownBy(() -> LetheServer.start(config(data, url, null, Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ConfigKeys.STORE_URI + "=" + legacy)
        .hasMessageContaining("lethe store sync");
    // the same at config loading (exit 2 from `lethe server`)
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.DATA_DIR, data.toString(), ConfigKeys.JDBC_URL, url),
        Map.of(), null)).isInstanceOf(ConfigException.class).hasMessageContaining(legacy);
    // choosing the file store keeps it (with the warning); choosing the catalog database starts empty
    try (LetheServer kept = LetheServer.start(config(data, url, null, Map.of(ConfigKeys.STORE_URI, legacy)))) {
      assertThat(new ServerHttp(kept).send("GET", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(200);
    }
    try (LetheServer moved = LetheServer.start(config(data, url, null, Map.of(ConfigKeys.STORE_URI, url)))) {
      assertThat(new ServerHttp(moved).send("GET", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void anEmptyOldDefaultStoreDoesNotStopTheNewDefault() throws Exception {
    Path data = dir.resolve("a");
    Files.createDirectories(data.resolve("store/_blobs"));
    Files.createDirectories(data.resolve("store/~ledger"));
    Files.writeString(data.resolve("store/~ledger/state.json"), "{}");
    String url = databases.create("postgresql", dir);
    try (LetheServer server = LetheServer.start(config(data, url, null, Map.of()))) {
      assertThat(new ServerHttp(server).send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of()).statusCode()).isEqualTo(201);
    }
    assertThat(data.resolve("store/n")).doesNotExist();
  }
}
