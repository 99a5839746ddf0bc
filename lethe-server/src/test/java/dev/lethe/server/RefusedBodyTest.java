package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.KeyPrefix;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body the server refuses before reading it still gets its answer, every time, with the JDK
 * HttpClient and no retry (docs/design/0117-answering-refused-bodies.md): the server drains the
 * unread body (up to twice {@code lethe.http.max-request-bytes}) before it answers, so the client
 * never sees the connection reset while it is still writing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusedBodyTest {
  private static final int LIMIT = 1024 * 1024;
  private static final int TIMES = 40;

  @TempDir static Path dir;
  LetheServer server;
  final HttpClient http = HttpClient.newHttpClient();
  /** Over the limit, under twice the limit: refused, and drained. */
  final byte[] big = ("{\"kind\":\"document\",\"body\":{\"text\":\"" + "x".repeat(LIMIT * 19 / 10) + "\"}}")
      .getBytes(StandardCharsets.UTF_8);
  /** Under the limit: refused for its path, unread, and drained. */
  final byte[] underLimit = ("{\"kind\":\"document\",\"body\":{\"text\":\"" + "x".repeat(LIMIT * 9 / 10) + "\"}}")
      .getBytes(StandardCharsets.UTF_8);

  @BeforeAll
  void start() {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 4, null, LIMIT, null,
        Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  @Test
  void aBodyOverTheLimitByContentLengthIsAnswered413EveryTime() throws Exception {
    for (int i = 0; i < TIMES; i++) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/store/v1/records/ns/col/a" + i))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(big)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("attempt %d", i).isEqualTo(413);
      assertThat(r.body()).contains("\"RequestTooLarge\"").contains("limit is " + LIMIT + " bytes")
          .contains("(lethe.http.max-request-bytes)");
    }
    assertThat(server.store().listRaw(KeyPrefix.namespace("ns"))).isEmpty();
  }

  @Test
  void aChunkedBodyOverTheLimitIsAnswered413EveryTime() throws Exception {
    for (int i = 0; i < TIMES; i++) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/store/v1/records/chunked/col/a" + i))
          .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("attempt %d", i).isEqualTo(413);
      assertThat(r.body()).contains("(lethe.http.max-request-bytes)");
    }
    assertThat(server.store().listRaw(KeyPrefix.namespace("chunked"))).isEmpty();
  }

  @Test
  void aBodyRefusedForItsPathIsAnswered400EveryTime() throws Exception {
    for (int i = 0; i < TIMES; i++) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/store/v1/records/dots/col/.."))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(underLimit)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("attempt %d", i).isEqualTo(400);
      assertThat(r.body()).contains("relative path segment");
    }
  }

  @Test
  void aBodyLongerThanTwiceTheLimitStillGetsA413OrAClosedConnection() throws Exception {
    // not drained (the server would read up to 3 MiB for nothing): the old behaviour, no hang
    byte[] huge = new byte[3 * LIMIT];
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/store/v1/blobs/" + "0".repeat(64)))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(huge)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(413);
    } catch (java.io.IOException reset) {
      // the transport race this test class shows gone for bodies under twice the limit
    }
  }
}
