package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.KeyPrefix;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request whose body does not arrive whole — fewer bytes than its {@code Content-Length}, then
 * the client's half of the connection closed, or the client silent until the idle timeout — is the
 * client's failure: every route that reads a body answers 400 (408 after the timeout) with its
 * error shape, never 500, and writes nothing (docs/design/0119-a-body-that-does-not-arrive.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BodyThatDoesNotArriveTest {

  @TempDir static Path dir;
  LetheServer server;

  @BeforeAll
  void start() {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
  }

  @AfterAll
  void stop() {
    server.close();
  }

  /** Every route that reads a body: method, path, and the start of a body that would be valid. */
  private static Map<String, String[]> routes() {
    String blob = "a blob's bytes";
    Map<String, String[]> r = new LinkedHashMap<>();
    r.put("consumer put", new String[] {"PUT", "/store/v1/records/ns/col/a", "{\"body\":{\"text\":\"hello\"}}"});
    r.put("delete", new String[] {"DELETE", "/store/v1/records/ns/col/a", "{\"author\":\"bob\"}"});
    r.put("raw put", new String[] {"PUT", "/store/v1/raw/records/ns/col/a", "{\"format\":2}"});
    r.put("batch", new String[] {"POST", "/store/v1/raw/batch/ns", "[{\"record\":{}}]"});
    r.put("purge", new String[] {"POST", "/store/v1/raw/purge/ns/col/a", "{\"expected\":null}"});
    r.put("blob", new String[] {"PUT", "/store/v1/blobs/" + ContentHash.ofUtf8(blob), blob});
    r.put("create namespace", new String[] {"POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"n1\"]}"});
    return r;
  }

  /**
   * Sends the head with {@code Content-Length} of the whole body but only its first half, then
   * half-closes (EOF) or waits, and returns the answer's text.
   */
  private String sendHalf(String method, String path, String body, boolean eof) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(120_000);
      OutputStream out = s.getOutputStream();
      out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(bytes, 0, bytes.length / 2);
      out.flush();
      if (eof) {
        s.shutdownOutput();
      }
      InputStream in = s.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void aBodyCutShortByTheClientIs400OnEveryRouteAndWritesNothing() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    for (Map.Entry<String, String[]> e : routes().entrySet()) {
      String[] r = e.getValue();
      String answer = sendHalf(r[0], r[1], r[2], true);
      soft.assertThat(answer).as(e.getKey()).startsWith("HTTP/1.1 400 ").contains("the body could not be read whole")
          .doesNotContain("Internal");
    }
    soft.assertAll();
    assertThat(server.store().listRaw(KeyPrefix.all())).isEmpty();
    assertThat(server.store().blobs().list()).isEmpty();
  }

  @Test
  void aBodyThatStopsArrivingIs408AtTheIdleTimeoutOnAStoreAndAnIcebergRoute() throws Exception {
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (String name : List.of("blob", "create namespace")) {
      String[] r = routes().get(name);
      answers.add(CompletableFuture.supplyAsync(() -> {
        try {
          return sendHalf(r[0], r[1], r[2], false);
        } catch (Exception ex) {
          throw new IllegalStateException(ex);
        }
      }));
    }
    assertThat(answers.get(0).get()).startsWith("HTTP/1.1 408 ")
        .contains("{\"code\":408,\"type\":\"RequestTimeout\",\"message\":\"Request timeout: the request body stopped");
    assertThat(answers.get(1).get()).startsWith("HTTP/1.1 408 ").contains("\"code\":408").contains("RequestTimeout");
    assertThat(server.store().blobs().list()).isEmpty();
  }

  @Test
  void aChunkedBodyWithABadChunkOrCutMidChunkIs400() throws Exception {
    for (String chunks : List.of("ZZ\r\nabc\r\n0\r\n\r\n", "10\r\nabc")) {
      try (Socket s = new Socket("127.0.0.1", server.port())) {
        s.setSoTimeout(60_000);
        s.getOutputStream().write(("PUT /store/v1/records/ns/col/chunked HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n" + chunks).getBytes(StandardCharsets.US_ASCII));
        s.shutdownOutput();
        String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(answer).as(chunks).startsWith("HTTP/1.1 400 ").contains("\"type\":\"BadRequest\"");
      }
    }
    assertThat(server.store().listRaw(KeyPrefix.all())).isEmpty();
  }
}
