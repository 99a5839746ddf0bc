package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /store/v1/raw/batch/{ns}} (docs/design/0115-batched-raw-writes.md) on every substrate
 * a server serves: each item is answered with the single raw put's status (201, 200, 409 with the
 * stored record, 412) and a conflicting item stops no other; a bad batch (too many items, none, not
 * an array, a malformed item, a 63-character hash inside, an item outside the path's namespace, a
 * missing blob, a header expectation) is 400 with one JSON message and writes nothing, even when
 * its other items are good; a body over the request limit is 413 in the store's error shape.
 */
class StoreBatchRouteTest {

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private final HttpClient http = HttpClient.newHttpClient();
  private final RecordJson json = new RecordJson();

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    databases.close();
  }

  private Store start(String backend, long maxRequestBytes) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    if (!backend.equals("file")) {
      props.put(ConfigKeys.STORE_URI, databases.create(backend, dir));
    }
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        maxRequestBytes, null, props));
    return server.store();
  }

  private HttpResponse<String> post(String ns, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + "/store/v1/raw/batch/" + ns)).POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(r::header);
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A record as another store wrote it, kept verbatim by a raw put. */
  private static Record foreign(RecordKey k, long counter, String text, Optional<Revision> parent) {
    Body body = Body.Inline.text(text);
    Meta meta = new Meta("bob", "peer", 1000L, 2000L, Map.of());
    return new Record(k, Kind.DOCUMENT,
        dev.lethe.store.core.RevisionHash.revision(counter, Kind.DOCUMENT, body, meta, List.of()),
        parent.orElse(null), parent.map(List::of).orElse(List.of()), body, meta, null, null, List.of());
  }

  private static String revision(Revision r) {
    return "{\"counter\":" + r.counter() + ",\"hash\":\"" + r.hash() + "\"}";
  }

  private String item(Record r, Optional<Revision> expected) {
    return "{\"record\":" + json.format(r) + expected.map(e -> ",\"expected\":" + revision(e)).orElse("") + "}";
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "h2", "postgresql"})
  void eachItemIsAnsweredAsItsOwnRawPutAndAConflictStopsNoOther(String backend) throws Exception {
    Store store = start(backend, ServerConfig.DEFAULT_MAX_REQUEST_BYTES);
    Record live = ((Committed) store.put(Record.draft(new RecordKey("b", "c", "live"), Kind.DOCUMENT,
        Body.Inline.text("live"), Meta.EMPTY), Optional.empty())).record();
    Record fresh = foreign(new RecordKey("b", "c", "fresh"), 3, "fresh", Optional.empty());
    Record over = foreign(live.key(), live.revision().counter() + 1, "over", Optional.of(live.revision()));
    Record stale = foreign(new RecordKey("b", "c", "fresh"), 9, "stale", Optional.empty());
    Record absent = foreign(new RecordKey("b", "c", "absent"), 2, "absent", Optional.empty());
    Record next = foreign(fresh.key(), 4, "next", Optional.of(fresh.revision()));
    String body = "[" + String.join(",",
        item(fresh, Optional.empty()),                     // 201: created
        item(over, Optional.of(live.revision())),          // 200: over the expected revision
        item(stale, Optional.empty()),                     // 409: the first item's record is stored now
        item(absent, Optional.of(new Revision(1, ContentHash.ofUtf8("x")))), // 412
        item(next, Optional.of(fresh.revision()))) + "]";  // 200: sees the first item's write
    HttpResponse<String> r = post("b", body, Map.of());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode results = StrictJson.read(r.body().getBytes(StandardCharsets.UTF_8), "answer").get("results");
    assertThat(results).hasSize(5);
    assertThat(results.get(0).get("status").asInt()).isEqualTo(201);
    assertThat(json.fromJson(results.get(0).get("record"))).isEqualTo(fresh);
    assertThat(results.get(1).get("status").asInt()).isEqualTo(200);
    assertThat(json.fromJson(results.get(1).get("record"))).isEqualTo(over);
    assertThat(results.get(2).get("status").asInt()).isEqualTo(409);
    assertThat(json.fromJson(results.get(2).get("record"))).isEqualTo(fresh);
    assertThat(results.get(3).get("status").asInt()).isEqualTo(412);
    assertThat(results.get(3).get("message").asText()).contains("absent");
    assertThat(results.get(4).get("status").asInt()).isEqualTo(200);
    assertThat(store.getRaw(fresh.key())).contains(next);
    assertThat(store.getRaw(live.key())).contains(over);
    assertThat(store.getRaw(absent.key())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "h2", "postgresql"})
  void everyBadBatchIs400AndWritesNothing(String backend) throws Exception {
    Store store = start(backend, ServerConfig.DEFAULT_MAX_REQUEST_BYTES);
    Record live = ((Committed) store.put(Record.draft(new RecordKey("b", "c", "live"), Kind.DOCUMENT,
        Body.Inline.text("live"), Meta.EMPTY), Optional.empty())).record();
    List<Record> before = store.listRaw(KeyPrefix.all());
    String good = item(foreign(new RecordKey("b", "c", "new"), 1, "new", Optional.empty()), Optional.empty());
    String goodOver = item(foreign(live.key(), 2, "over", Optional.of(live.revision())), Optional.of(live.revision()));
    String rev63 = "{\"counter\":1,\"hash\":\"" + live.revision().hash().substring(1) + "\"}";
    String record63 = json.format(foreign(new RecordKey("b", "c", "h"), 1, "h", Optional.empty()))
        .replaceFirst("\"hash\"\\s*:\\s*\"[0-9a-f]{64}\"", "\"hash\":\"" + "a".repeat(63) + "\"");
    assertThat(record63).contains("\"" + "a".repeat(63) + "\"");
    String missingBlob = json.format(new Record(new RecordKey("b", "c", "blob"), Kind.DOCUMENT,
        dev.lethe.store.core.RevisionHash.revision(1, Kind.DOCUMENT, new Body.Blob(ContentHash.ofUtf8("nowhere"), 7)),
        null, List.of(), new Body.Blob(ContentHash.ofUtf8("nowhere"), 7),
        Meta.EMPTY, null, null, List.of()));
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("1001 items", "[" + String.join(",", java.util.Collections.nCopies(1001, good)) + "]");
    bad.put("no items", "[]");
    bad.put("an object, not an array", "{\"items\":[" + good + "]}");
    bad.put("truncated JSON", "[" + good + "," + goodOver.substring(0, goodOver.length() / 2));
    bad.put("an item without its record", "[" + good + ",{\"expected\":null}]");
    bad.put("an item that is not an object", "[" + good + ",17]");
    bad.put("an item with an unknown field", "[" + good + ",{\"record\":" + json.format(live) + ",\"force\":true}]");
    bad.put("an expected revision with a 63-character hash", "[" + good + ",{\"record\":" + json.format(live)
        + ",\"expected\":" + rev63 + "}]");
    bad.put("a record revision with a 63-character hash", "[" + good + ",{\"record\":" + record63 + "}]");
    bad.put("an item in another namespace", "[" + good + ","
        + item(foreign(new RecordKey("other", "c", "x"), 1, "x", Optional.empty()), Optional.empty()) + "]");
    bad.put("an item naming a blob the server lacks", "[" + good + ",{\"record\":" + missingBlob + "}]");
    SoftAssertions soft = new SoftAssertions();
    for (Map.Entry<String, String> b : bad.entrySet()) {
      HttpResponse<String> r = post("b", b.getValue(), Map.of());
      soft.assertThat(r.statusCode()).as(backend + ": " + b.getKey() + " -> " + r.body()).isEqualTo(400);
      soft.assertThat(r.body()).as(backend + ": " + b.getKey()).startsWith("{").contains("\"message\"");
    }
    HttpResponse<String> header = post("b", "[" + good + "]", Map.of("If-None-Match", "*"));
    soft.assertThat(header.statusCode()).as("If-None-Match on a batch -> " + header.body()).isEqualTo(400);
    HttpResponse<String> badNs = post("a%2Fb", "[" + good + "]", Map.of());
    soft.assertThat(badNs.statusCode()).as("a bad namespace -> " + badNs.body()).isEqualTo(400);
    soft.assertAll();
    assertThat(store.listRaw(KeyPrefix.all())).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "postgresql"})
  void aBatchOverTheRequestLimitIs413AndWritesNothing(String backend) throws Exception {
    Store store = start(backend, 64 * 1024);
    StringBuilder body = new StringBuilder("[");
    for (int i = 0; body.length() < 80 * 1024; i++) {
      body.append(i == 0 ? "" : ",").append(item(foreign(new RecordKey("b", "c", "k" + i), 1, "v" + i,
          Optional.empty()), Optional.empty()));
    }
    String json = body.append("]").toString();
    // the server refuses the body by its Content-Length without reading it and closes the
    // connection: a client still writing the body may see a reset instead of the answer, so the
    // request head goes alone over a socket and the answer is read before any body byte is sent
    int length = json.getBytes(StandardCharsets.UTF_8).length;
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(("POST /store/v1/raw/batch/b HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Content-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("HTTP/1.1 413 Payload Too Large");
      int contentLength = -1;
      for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          contentLength = Integer.parseInt(line.substring(15).trim());
        }
      }
      char[] answer = new char[contentLength];
      int read = 0;
      while (read < contentLength) {
        read += in.read(answer, read, contentLength - read);
      }
      assertThat(new String(answer)).startsWith("{").contains("\"message\"");
    }
    assertThat(store.listRaw(KeyPrefix.all())).isEmpty();
  }
}
