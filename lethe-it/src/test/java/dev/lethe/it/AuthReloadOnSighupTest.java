package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code kill -HUP} re-reads the auth file of a real {@code lethe server} process with the poll
 * off (docs/design/0425-auth-file-reload.md): the process keeps running (the JVM's default would
 * exit), a principal added before the signal is let in after it, and a stop is still exit 0. The
 * servers start through {@code env}, so SIGHUP's disposition is the test's choice, not inherited
 * from however the test run was started (under {@code nohup} a JVM leaves SIGHUP ignored).
 */
class AuthReloadOnSighupTest {
  static String principal(String name, String token) throws Exception {
    String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    return "  - name: " + name + "\n    token-sha256: \"" + hash + "\"\n    read: [main]\n";
  }

  static int status(ServerFixture server, String token) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.process.icebergUri() + "/v1/main/namespaces"))
        .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void sighupLetsInAPrincipalAddedToTheFileAndTheServerKeepsRunning() throws Exception {
    Path work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it")));
    Path auth = Files.createTempFile(work, "auth-hup-", ".yaml");
    Files.writeString(auth, "principals:\n" + principal("reader", "reader-token-hup"));
    ServerFixture server = ServerFixture.start(List.of("env", "--default-signal=HUP"), "auth-hup",
        Map.of("LETHE_AUTH_FILE", auth.toString(), "LETHE_AUTH_RELOAD_INTERVAL_MS", "0"));
    try {
      assertThat(status(server, "newcomer-token-hup")).isEqualTo(401);
      Path next = auth.resolveSibling(auth.getFileName() + ".next");
      Files.writeString(next, "principals:\n" + principal("reader", "reader-token-hup") + principal("newcomer", "newcomer-token-hup"));
      Files.move(next, auth, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      assertThat(status(server, "newcomer-token-hup")).as("the poll is off").isEqualTo(401);

      Process hup = new ProcessBuilder("kill", "-HUP", String.valueOf(server.process.pid().pid())).start();
      assertThat(hup.waitFor()).isZero();

      await().atMost(Duration.ofSeconds(20)).until(() -> status(server, "newcomer-token-hup") == 200);
      assertThat(server.process.pid().isAlive()).isTrue();
      assertThat(server.process.log()).contains("Auth file reloaded: 2 principal(s)");
      assertThat(server.process.stop()).as("exit code after SIGTERM").isZero();
    } finally {
      server.close();
    }
  }

  @Test
  void aServerStartedWithSighupIgnoredSaysTheFileIsNeverReReadAndAHupLeavesItRunning() throws Exception {
    Path work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it")));
    Path auth = Files.createTempFile(work, "auth-nohup-", ".yaml");
    Files.writeString(auth, "principals:\n" + principal("reader", "reader-token-nohup"));
    ServerFixture server = ServerFixture.start(List.of("env", "--ignore-signal=HUP"), "auth-nohup",
        Map.of("LETHE_AUTH_FILE", auth.toString(), "LETHE_AUTH_RELOAD_INTERVAL_MS", "0"));
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> server.process.log().contains("SIGHUP is ignored"));
      assertThat(server.process.log()).contains("SIGHUP is ignored by this process (started under nohup?): "
          + "the auth file is never re-read; set lethe.auth.reload-interval-ms above 0");
      Process hup = new ProcessBuilder("kill", "-HUP", String.valueOf(server.process.pid().pid())).start();
      assertThat(hup.waitFor()).isZero();
      assertThat(status(server, "reader-token-nohup")).isEqualTo(200);
      assertThat(server.process.pid().isAlive()).isTrue();
      assertThat(server.process.stop()).as("exit code after SIGTERM").isZero();
    } finally {
      server.close();
    }
  }
}
