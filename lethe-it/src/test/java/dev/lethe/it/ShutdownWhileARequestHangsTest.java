package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM while a request hangs (docs/design/0410-operations.md §4): a real {@code lethe server} on
 * PostgreSQL, a request blocked behind a table lock this test holds over its own JDBC connection,
 * then SIGTERM. The stop waits at most {@code lethe.server.shutdown-timeout-ms}, answers the hung
 * request 503 with a JSON error, answers new requests 503 meanwhile, and exits 0 without a stack
 * trace. Needs {@code -Dlethe.test.postgres.url}; skipped without it.
 */
class ShutdownWhileARequestHangsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SHUTDOWN_TIMEOUT_MS = 3000;

  @TempDir Path dir;

  @Test
  void sigtermAnswersAHungRequest503WithinTheTimeoutAndExitsZero() throws Exception {
    Backends.Fresh db = Backends.createOrSkip("postgresql");
    String schema = db.jdbcUrl().replaceAll(".*currentSchema=([A-Za-z0-9_]+).*", "$1");
    int port = freePort();
    Path data = Files.createDirectories(dir.resolve("data"));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    String base = "http://127.0.0.1:" + port;
    try (LetheProcess server = LetheProcess.start(port, data, dir.resolve("server.log"),
            List.of("--jdbc-url", db.jdbcUrl()),
            Map.of("LETHE_SERVER_SHUTDOWN_TIMEOUT_MS", String.valueOf(SHUTDOWN_TIMEOUT_MS),
                "LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0"));
         Connection lock = DriverManager.getConnection(db.jdbcUrl())) {
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/iceberg/v1/main/namespaces"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"namespace\":[\"n\"]}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);

      // hold a lock every namespace read waits for, so the next request hangs in the database
      lock.setAutoCommit(false);
      try (Statement s = lock.createStatement()) {
        s.execute("LOCK TABLE " + schema + ".lethe_namespace IN ACCESS EXCLUSIVE MODE");
      }
      CompletableFuture<HttpResponse<String>> hung = http.sendAsync(
          HttpRequest.newBuilder(URI.create(base + "/iceberg/v1/main/namespaces/n")).timeout(Duration.ofSeconds(120)).build(),
          HttpResponse.BodyHandlers.ofString());
      await().atMost(Duration.ofSeconds(30)).until(() -> waitingOnALock(lock, schema));
      assertThat(hung).isNotDone();

      long sigterm = System.nanoTime();
      ProcessHandle handle = server.pid();
      handle.destroy();

      // while it stops, a new request is answered 503 (JSON), not left hanging or refused
      await().atMost(Duration.ofMillis(SHUTDOWN_TIMEOUT_MS)).pollInterval(Duration.ofMillis(100)).until(() -> {
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/healthz"))
              .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 503) {
            assertThat(error(r).get("message").asText()).contains("shutting down");
            return true;
          }
          return false;
        } catch (java.io.IOException refused) {
          return false;
        }
      });

      // in each route family's error shape: Iceberg's {error: {...}} above, {code, type, message} here
      for (String path : List.of("/store/v1", "/api/metalakes/default/catalogs/main/cleanups")) {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(503);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.has("error")).as(r.body()).isFalse();
        assertThat(body.get("code").asInt()).isEqualTo(503);
        assertThat(body.get("message").asText()).contains("shutting down");
      }
      assertThat(hung).as("still waiting for its timeout").isNotDone();

      HttpResponse<String> answer = hung.get(SHUTDOWN_TIMEOUT_MS + 15_000, TimeUnit.MILLISECONDS);
      long answeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sigterm);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
      assertThat(answer.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
      assertThat(error(answer).get("message").asText()).contains("shutting down");
      assertThat(answeredMs).as("answered after SIGTERM, ms").isBetween(SHUTDOWN_TIMEOUT_MS - 500, SHUTDOWN_TIMEOUT_MS + 10_000);

      int exit = server.stop();
      long exitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sigterm);
      System.out.println("ShutdownWhileARequestHangsTest: hung request answered " + answeredMs + " ms and process exited "
          + exitedMs + " ms after SIGTERM (timeout " + SHUTDOWN_TIMEOUT_MS + " ms)");
      assertThat(exit).as("exit code after SIGTERM; log:\n" + server.log()).isZero();
      assertThat(exitedMs).isLessThan(SHUTDOWN_TIMEOUT_MS + 15_000);
      assertThat(server.log()).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("ERROR")
          .contains("still running");
      lock.rollback();
    } finally {
      try (Connection c = DriverManager.getConnection(db.adminUrl()); Statement s = c.createStatement()) {
        s.execute(db.dropSql());
      }
    }
  }

  @Test
  void aRequestThatFinishesWithinTheTimeoutIsAnsweredNormallyAndTheProcessExitsZero() throws Exception {
    Backends.Fresh db = Backends.createOrSkip("postgresql");
    String schema = db.jdbcUrl().replaceAll(".*currentSchema=([A-Za-z0-9_]+).*", "$1");
    int port = freePort();
    Path data = Files.createDirectories(dir.resolve("data"));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    String base = "http://127.0.0.1:" + port;
    try (LetheProcess server = LetheProcess.start(port, data, dir.resolve("server.log"),
            List.of("--jdbc-url", db.jdbcUrl()),
            Map.of("LETHE_SERVER_SHUTDOWN_TIMEOUT_MS", "30000", "LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0"));
         Connection lock = DriverManager.getConnection(db.jdbcUrl())) {
      lock.setAutoCommit(false);
      try (Statement s = lock.createStatement()) {
        s.execute("LOCK TABLE " + schema + ".lethe_namespace IN ACCESS EXCLUSIVE MODE");
      }
      CompletableFuture<HttpResponse<String>> slow = http.sendAsync(
          HttpRequest.newBuilder(URI.create(base + "/iceberg/v1/main/namespaces"))
              .POST(HttpRequest.BodyPublishers.ofString("{\"namespace\":[\"late\"]}")).timeout(Duration.ofSeconds(120)).build(),
          HttpResponse.BodyHandlers.ofString());
      await().atMost(Duration.ofSeconds(30)).until(() -> waitingOnALock(lock, schema));
      server.pid().destroy();
      // the stop has begun (new requests are 503) while the slow one still waits
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
        try {
          return http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.ofString()).statusCode() == 503;
        } catch (java.io.IOException notYet) {
          return false;
        }
      });
      assertThat(slow).isNotDone();
      lock.rollback(); // the slow request finishes well within its 30 s

      HttpResponse<String> answer = slow.get(30, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(server.stop()).as("exit code after SIGTERM; log:\n" + server.log()).isZero();
      assertThat(server.log()).doesNotContain("Exception").doesNotContain("ERROR").doesNotContain("still running");
    } finally {
      try (Connection c = DriverManager.getConnection(db.adminUrl()); Statement s = c.createStatement()) {
        s.execute(db.dropSql());
      }
    }
  }

  private static boolean waitingOnALock(Connection c, String schema) throws Exception {
    try (Statement s = c.createStatement();
         ResultSet r = s.executeQuery("SELECT count(*) FROM pg_locks l JOIN pg_class t ON t.oid = l.relation "
             + "JOIN pg_namespace n ON n.oid = t.relnamespace WHERE NOT l.granted AND n.nspname = '" + schema
             + "' AND t.relname = 'lethe_namespace'")) {
      r.next();
      return r.getInt(1) > 0;
    }
  }

  private static JsonNode error(HttpResponse<String> r) throws Exception {
    JsonNode body = JSON.readTree(r.body());
    return body.has("error") ? body.get("error") : body;
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
