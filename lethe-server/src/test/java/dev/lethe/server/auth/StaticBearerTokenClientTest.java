package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What the README and docs/auth.md tell an iceberg-java (1.12) client to set for Lethe's static
 * bearer tokens: {@code rest.auth.type=none} and {@code header.Authorization=Bearer <token>}. The
 * client then sends the token on every request and logs nothing about OAuth2; the {@code token}
 * property alone makes iceberg-java infer OAuth2 and warn twice (inferred auth type, no OAuth2
 * server URI). Real server with auth on, iceberg-java's {@link RESTCatalog}.
 */
class StaticBearerTokenClientTest {
  @TempDir Path dir;
  private LetheServer server;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger auth = (Logger) LoggerFactory.getLogger("org.apache.iceberg.rest");
  private Level level;

  @BeforeEach
  void start() throws Exception {
    Path file = dir.resolve("auth.yaml");
    Files.writeString(file, "principals:\n"
        + "  - name: etl\n    token-sha256: " + ContentHash.ofUtf8("etl-token") + "\n    read: [main]\n    write: [main]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token") + "\n    read: [main]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, file, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    lines.start();
    auth.addAppender(lines);
    level = auth.getLevel();
    auth.setLevel(Level.DEBUG);
  }

  @AfterEach
  void stop() {
    auth.detachAppender(lines);
    auth.setLevel(level);
    server.close();
  }

  private RESTCatalog client(Map<String, String> authProps) {
    Map<String, String> props = new HashMap<>(Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg",
        "warehouse", "main", "io-impl", "dev.lethe.catalog.io.LocalFileIO"));
    props.putAll(authProps);
    RESTCatalog c = new RESTCatalog();
    c.initialize("lethe", props);
    return c;
  }

  private static Map<String, String> bearer(String token) {
    return Map.of("rest.auth.type", "none", "header.Authorization", "Bearer " + token);
  }

  private List<String> oauthWarnings() {
    return lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.toLowerCase(java.util.Locale.ROOT).contains("oauth")
            || m.contains("rest.auth.type")).toList();
  }

  @Test
  void aStaticBearerTokenIsSentOnEveryRequestWithoutTheOauth2Guess() throws Exception {
    try (RESTCatalog etl = client(bearer("etl-token"))) {
      etl.createNamespace(Namespace.of("sales"));
      etl.createTable(TableIdentifier.of("sales", "orders"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
      assertThat(etl.loadTable(TableIdentifier.of("sales", "orders")).schema().columns()).hasSize(1);
    }
    try (RESTCatalog reader = client(bearer("reader-token"))) {
      assertThat(reader.listTables(Namespace.of("sales"))).containsExactly(TableIdentifier.of("sales", "orders"));
      // the reader's own token is what the server saw: it may read, not write
      assertThatThrownBy(() -> reader.dropTable(TableIdentifier.of("sales", "orders"), false))
          .isInstanceOf(ForbiddenException.class);
    }
    try (RESTCatalog nobody = client(bearer("wrong-token"))) {
      throw new AssertionError("a wrong token was accepted");
    } catch (NotAuthorizedException expected) {
      // GET /v1/config is refused: the header is sent from the first request on
    }
    assertThat(oauthWarnings()).isEmpty();
  }

  @Test
  void theTokenPropertyAloneMakesIcebergJavaGuessOauth2AndWarn() throws Exception {
    try (RESTCatalog guessed = client(Map.of("token", "etl-token"))) {
      guessed.listNamespaces();
    }
    assertThat(oauthWarnings()).anySatisfy(m -> assertThat(m).contains("Inferring rest.auth.type=oauth2"));
  }
}
