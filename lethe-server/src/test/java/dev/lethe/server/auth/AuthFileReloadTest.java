package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The auth file is re-read on change (docs/design/0425-auth-file-reload.md), against a real server
 * over HTTP: a principal added later is let in without a restart, one removed is refused, a file
 * that does not validate keeps the principals in use and logs one line once, and with polling off
 * {@link LetheServer#reloadAuth()} (what SIGHUP calls) re-reads it at once.
 */
class AuthFileReloadTest {
  @TempDir Path dir;

  static String principal(String name, String token) {
    return "  - name: " + name + "\n    token-sha256: " + ContentHash.ofUtf8(token) + "\n    read: [main]\n";
  }

  /** Replaces the file as an operator's deploy tool does: a new file renamed over the old one. */
  static void replace(Path file, String content) throws Exception {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, content);
    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  LetheServer start(Path auth, long intervalMs) {
    return LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0",
            ConfigKeys.AUTH_RELOAD_INTERVAL_MS, String.valueOf(intervalMs))));
  }

  static int status(ServerHttp http, String token) throws Exception {
    return http.send("GET", "/iceberg/v1/main/namespaces", null, Map.of("Authorization", "Bearer " + token)).statusCode();
  }

  @Test
  void aChangedFileTakesEffectWithoutARestartAndABadOneKeepsThePrincipalsInUse() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n" + principal("reader", "reader-token"));
    Logger log = (Logger) LoggerFactory.getLogger(AuthFileWatch.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    log.addAppender(lines);
    Level level = log.getLevel();
    log.setLevel(Level.INFO);
    try (LetheServer server = start(auth, 50)) {
      ServerHttp http = new ServerHttp(server);
      assertThat(status(http, "reader-token")).isEqualTo(200);
      assertThat(status(http, "newcomer-token")).isEqualTo(401);

      replace(auth, "principals:\n" + principal("reader", "reader-token") + principal("newcomer", "newcomer-token"));
      await().atMost(Duration.ofSeconds(10)).until(() -> status(http, "newcomer-token") == 200);

      replace(auth, "principals:\n  - name: [broken\n");
      await().atMost(Duration.ofSeconds(10)).until(() -> warnings(lines) == 1);
      // several polls later: still one line, and both principals still in
      await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(5)).until(() -> warnings(lines) == 1);
      assertThat(status(http, "reader-token")).isEqualTo(200);
      assertThat(status(http, "newcomer-token")).isEqualTo(200);
      assertThat(lines.list.stream().filter(e -> e.getLevel() == Level.WARN).findFirst().orElseThrow().getFormattedMessage())
          .contains("keeping the 2 principal(s) in use").contains(auth.toString()).doesNotContain("newcomer-token");

      replace(auth, "principals:\n" + principal("newcomer", "newcomer-token"));
      await().atMost(Duration.ofSeconds(10)).until(() -> status(http, "reader-token") == 401);
      assertThat(status(http, "newcomer-token")).isEqualTo(200);
    } finally {
      log.detachAppender(lines);
      log.setLevel(level);
    }
    assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(m -> m.startsWith("Auth file reloaded")).hasSize(2);
  }

  static long warnings(ListAppender<ILoggingEvent> lines) {
    return lines.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
  }

  @Test
  void withPollingOffTheFileIsReReadOnlyWhenAsked() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n" + principal("reader", "reader-token"));
    try (LetheServer server = start(auth, 0)) {
      ServerHttp http = new ServerHttp(server);
      replace(auth, "principals:\n" + principal("newcomer", "newcomer-token"));
      assertThat(status(http, "newcomer-token")).isEqualTo(401);
      assertThat(server.reloadAuth()).isTrue();
      assertThat(status(http, "newcomer-token")).isEqualTo(200);
      assertThat(status(http, "reader-token")).isEqualTo(401);
      assertThat(server.reloadAuth()).as("unchanged").isFalse();
    }
  }
}
