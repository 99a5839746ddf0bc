package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

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

  /**
   * A body the server leaves unread closes the connection after the answer; the answer says
   * {@code Connection: close}, so the client does not pool the connection and its next request
   * does not meet the close. CI saw "header parser received no bytes" on the request after such an
   * answer sent as keep-alive.
   */
  @Test
  void anAnswerBeforeAClosedConnectionSaysConnectionClose() throws Exception {
    byte[] huge = new byte[3 * LIMIT];
    for (int i = 0; i < TIMES; i++) {
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
        socket.setSoTimeout(10_000);
        java.io.OutputStream out = socket.getOutputStream();
        out.write(("PUT /store/v1/blobs/" + "0".repeat(64) + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + huge.length
            + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String head = readHead(socket.getInputStream());
        assertThat(head).as("attempt %d", i).startsWith("HTTP/1.1 413");
        assertThat(head.toLowerCase(java.util.Locale.ROOT)).as("attempt %d", i).contains("connection: close");
      }
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
        socket.setSoTimeout(10_000);
        java.io.OutputStream out = socket.getOutputStream();
        out.write(("PUT /store/v1/records/chunked/col/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + Integer.toHexString(big.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(big);
        out.flush();
        String head = readHead(socket.getInputStream());
        assertThat(head).as("chunked attempt %d", i).startsWith("HTTP/1.1 413");
        assertThat(head.toLowerCase(java.util.Locale.ROOT)).as("chunked attempt %d", i).contains("connection: close");
      }
    }
  }

  private static String readHead(java.io.InputStream in) throws java.io.IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        break;
      }
      head.append((char) c);
    }
    return head.toString();
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
