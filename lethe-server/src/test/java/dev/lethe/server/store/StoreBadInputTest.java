package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 11's bad-input matrix over HTTP, on every substrate a server can serve: every writing
 * route (consumer put, raw put, delete, purge, blob upload) with a key holding {@code ..}, {@code
 * %2F}, NUL or 300 characters, a truncated JSON body, a revision whose hash has 63 characters, and
 * a blob whose bytes do not match its hash is answered 400 — and the store, seeded with a live
 * record, a tombstone and a blob, is exactly as it was.
 */
class StoreBadInputTest {

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    databases.close();
  }

  private record Bad(String what, String method, String path, String body, Map<String, String> headers) {}

  private static final String GOOD_DRAFT = "{\"body\":{\"text\":\"v\"}}";

  private HttpResponse<String> send(Bad b) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + b.path()))
        .method(b.method(), b.body() == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(b.body()));
    b.headers().forEach(r::header);
    // Jetty closes the connection after a request line it cannot parse (%00): a fresh client for it
    HttpClient client = b.path().contains("%00") ? HttpClient.newHttpClient() : http;
    return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<Bad> matrix(Record live, String rawJson) {
    String good = "/store/v1/records/ns/col/r";
    String goodRaw = "/store/v1/raw/records/ns/col/r";
    String revision63 = "{\"counter\":1,\"hash\":\"" + live.revision().hash().substring(1) + "\"}";
    List<Bad> out = new ArrayList<>();
    Map<String, String> none = Map.of();
    for (String badId : List.of("..", "%2E%2E", "a%2Fb", "a%00b", "x".repeat(300))) {
      String label = badId.length() > 20 ? "300 characters" : badId;
      out.add(new Bad("consumer put, id " + label, "PUT", "/store/v1/records/ns/col/" + badId, GOOD_DRAFT, none));
      out.add(new Bad("raw put, id " + label, "PUT", "/store/v1/raw/records/ns/col/" + badId, rawJson, none));
      out.add(new Bad("delete, id " + label, "DELETE", "/store/v1/records/ns/col/" + badId, null, none));
      out.add(new Bad("purge, id " + label, "POST", "/store/v1/raw/purge/ns/col/" + badId, null, none));
      out.add(new Bad("consumer put, namespace " + label, "PUT", "/store/v1/records/" + badId + "/col/r", GOOD_DRAFT, none));
    }
    String truncated = "{\"body\":{\"text\":\"v\"}";
    out.add(new Bad("consumer put, truncated JSON", "PUT", good, truncated, Map.of("If-Match", revision(live))));
    out.add(new Bad("raw put, truncated JSON", "PUT", goodRaw, rawJson.substring(0, rawJson.length() / 2),
        Map.of("If-Match", revision(live))));
    out.add(new Bad("delete, truncated JSON", "DELETE", good, "{\"expected\":" + revision(live), none));
    out.add(new Bad("purge, truncated JSON", "POST", "/store/v1/raw/purge/ns/col/t", "{\"expected\":", none));
    for (Map.Entry<String, String> route : Map.of("consumer put", good, "raw put", goodRaw, "delete", good,
        "purge", "/store/v1/raw/purge/ns/col/r").entrySet()) {
      String method = route.getKey().endsWith("put") ? "PUT" : route.getKey().equals("delete") ? "DELETE" : "POST";
      String body = route.getKey().equals("consumer put") ? GOOD_DRAFT : route.getKey().equals("raw put") ? rawJson : null;
      out.add(new Bad(route.getKey() + ", If-Match hash of 63 characters", method, route.getValue(), body,
          Map.of("If-Match", revision63)));
    }
    out.add(new Bad("consumer put, body expected hash of 63 characters", "PUT", good,
        "{\"body\":{\"text\":\"v\"},\"expected\":" + revision63 + "}", none));
    out.add(new Bad("delete, body expected hash of 63 characters", "DELETE", good, "{\"expected\":" + revision63 + "}", none));
    String content = "the real bytes";
    out.add(new Bad("blob whose bytes do not match its hash", "PUT", "/store/v1/blobs/" + ContentHash.ofUtf8(content),
        "other bytes", none));
    out.add(new Bad("blob under a 63-character hash", "PUT", "/store/v1/blobs/" + ContentHash.ofUtf8(content).substring(1),
        content, none));
    return out;
  }

  /** Starts the server on {@code backend} (file, h2, postgresql, mariadb) with ancestor cap 4 and returns its store. */
  private Store startServer(String backend) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    if (!backend.equals("file")) {
      props.put(ConfigKeys.STORE_URI, databases.create(backend, dir));
    }
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    return server.store();
  }

  /** Puts the live record {@code ns/col/r} (text "live") and returns it as stored. */
  private static Record putLive(Store store) {
    return ((Committed) store.put(Record.draft(new RecordKey("ns", "col", "r"), Kind.DOCUMENT,
        Body.Inline.text("live"), Meta.EMPTY), Optional.empty())).record();
  }

  private static String revision(Record r) {
    return "{\"counter\":" + r.revision().counter() + ",\"hash\":\"" + r.revision().hash() + "\"}";
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "h2", "postgresql", "mariadb"})
  void everyBadInputIs400AndLeavesTheStoreAsItWas(String backend) throws Exception {
    Store store = startServer(backend);
    Record live = putLive(store);
    Record doomed = ((Committed) store.put(Record.draft(new RecordKey("ns", "col", "t"), Kind.DOCUMENT,
        Body.Inline.text("doomed"), Meta.EMPTY), Optional.empty())).record();
    store.delete(doomed.key(), Optional.empty());
    store.blobs().put("kept".getBytes(StandardCharsets.UTF_8));
    List<Record> records = store.listRaw(KeyPrefix.all());
    List<BlobInfo> blobs = store.blobs().list();
    String rawJson = new dev.lethe.store.core.format.RecordJson().format(live);

    SoftAssertions soft = new SoftAssertions();
    for (Bad bad : matrix(live, rawJson)) {
      HttpResponse<String> r = send(bad);
      soft.assertThat(r.statusCode()).as(backend + ": " + bad.what() + " -> " + r.body()).isEqualTo(400);
      soft.assertThat(r.body()).as(backend + ": " + bad.what() + " has one JSON message").startsWith("{").contains("message");
    }
    soft.assertAll();
    assertThat(store.listRaw(KeyPrefix.all())).isEqualTo(records);
    assertThat(store.blobs().list()).isEqualTo(blobs);
  }

  private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    for (int h = 0; h < headers.length; h += 2) {
      r.header(headers[h], headers[h + 1]); // header() adds: a name given twice is sent twice
    }
    HttpClient client = path.contains("%00") ? HttpClient.newHttpClient() : http;
    return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Input a reader could take two ways (a conditional header or query parameter given twice, of
   * which the first alone would succeed) and strings with no UTF-8 form (an unpaired surrogate,
   * which the store used to hash and keep as {@code ?}) are 400 on every route that reads them, as
   * is an empty key part in the path (a 404 before, which on a raw route reads as "server too old"),
   * and the store is exactly as it was (docs/design/0411-one-value-per-request-part.md,
   * docs/design/0412-store-json-is-well-formed-unicode.md).
   */
  @org.junit.jupiter.api.Test
  void ambiguousAndIllFormedInputIs400AndWritesNothing() throws Exception {
    Store store = startServer("file");
    Record live = putLive(store);
    Record other = ((Committed) store.put(Record.draft(new RecordKey("ns", "col", "o"), Kind.DOCUMENT,
        Body.Inline.text("other"), Meta.EMPTY), Optional.empty())).record();
    String blob = store.blobs().put("kept".getBytes(StandardCharsets.UTF_8)).hash();
    List<Record> records = store.listRaw(KeyPrefix.all());
    List<BlobInfo> blobs = store.blobs().list();
    String rev = revision(live);
    String otherRev = revision(other);
    String rawJson = new dev.lethe.store.core.format.RecordJson().format(live);
    assertThat(rawJson).contains("\"author\" : null");
    String key = "/store/v1/records/ns/col/r";
    String later = Long.toString(System.currentTimeMillis() + 86_400_000L);

    Map<String, HttpResponse<String>> answers = new java.util.LinkedHashMap<>();
    answers.put("consumer put, If-Match twice (the first one holds)",
        send("PUT", key, GOOD_DRAFT, "If-Match", rev, "If-Match", otherRev));
    answers.put("consumer put, If-Match twice, the same value", send("PUT", key, GOOD_DRAFT, "If-Match", rev, "If-Match", rev));
    answers.put("consumer put of a new key, If-None-Match twice",
        send("PUT", "/store/v1/records/ns/col/new", GOOD_DRAFT, "If-None-Match", "*", "If-None-Match", "*"));
    answers.put("raw put, If-Match twice", send("PUT", "/store/v1/raw/records/ns/col/r", rawJson, "If-Match", rev,
        "If-Match", otherRev));
    answers.put("delete, If-Match twice", send("DELETE", key, null, "If-Match", rev, "If-Match", otherRev));
    answers.put("purge, If-Match twice", send("POST", "/store/v1/raw/purge/ns/col/r", null, "If-Match", rev,
        "If-Match", otherRev));
    answers.put("blob removal, storedAtOrBefore twice (the first one removes)",
        send("DELETE", "/store/v1/blobs/" + blob + "?storedAtOrBefore=" + later + "&storedAtOrBefore=0", null));
    answers.put("listing, pageSize twice", send("GET", "/store/v1/records/ns?pageSize=1&pageSize=1000", null));
    answers.put("raw listing, startAfter twice", send("GET", "/store/v1/raw/records/ns?startAfter=ns/col/a&startAfter=ns/col/z", null));
    answers.put("listing, pageSize +1", send("GET", "/store/v1/records/ns?pageSize=%2B1", null));
    answers.put("listing, pageSize with a space", send("GET", "/store/v1/records/ns?pageSize=%201", null));
    answers.put("blob removal, storedAtOrBefore with a sign", send("DELETE", "/store/v1/blobs/" + blob
        + "?storedAtOrBefore=%2B" + later, null));
    answers.put("consumer put, unpaired surrogate in the text",
        send("PUT", "/store/v1/records/ns/col/s1", "{\"body\":{\"text\":\"a\\ud800\"}}"));
    answers.put("consumer put, unpaired low surrogate in a label key",
        send("PUT", "/store/v1/records/ns/col/s2", "{\"body\":{\"text\":\"a\"},\"meta\":{\"labels\":{\"\\udc00\":\"v\"}}}"));
    answers.put("consumer put over a live record, surrogate in the author",
        send("PUT", key, "{\"body\":{\"text\":\"b\"},\"meta\":{\"author\":\"\\ud83d\"}}", "If-Match", rev));
    answers.put("raw put, surrogate in the author", send("PUT", "/store/v1/raw/records/ns/col/r",
        rawJson.replace("\"author\" : null", "\"author\" : \"\\ud800\""), "If-Match", rev));
    answers.put("batch, surrogate in an item", send("POST", "/store/v1/raw/batch/ns",
        "[{\"record\":" + rawJson.replace("\"author\" : null", "\"author\" : \"\\udfff\"") + "}]"));
    String maxCounter = rawJson.replaceFirst("\"counter\" : 1,", "\"counter\" : 9223372036854775807,");
    assertThat(maxCounter).isNotEqualTo(rawJson);
    answers.put("raw put of a new key, counter 2^63 - 1", send("PUT", "/store/v1/raw/records/ns/col/big",
        maxCounter.replace("\"ns/col/r\"", "\"ns/col/big\"")));
    answers.put("batch, counter 2^53", send("POST", "/store/v1/raw/batch/ns", "[{\"record\":"
        + rawJson.replaceFirst("\"counter\" : 1,", "\"counter\" : 9007199254740992,")
            .replace("\"ns/col/r\"", "\"ns/col/big\"") + "}]"));
    answers.put("consumer put, If-Match counter 2^53", send("PUT", key, GOOD_DRAFT, "If-Match",
        rev.replace("\"counter\":" + live.revision().counter(), "\"counter\":9007199254740992")));
    answers.put("consumer put, empty collection", send("PUT", "/store/v1/records/ns//r", GOOD_DRAFT));
    answers.put("raw put, empty collection", send("PUT", "/store/v1/raw/records/ns//r", rawJson));
    answers.put("raw get, empty namespace", send("GET", "/store/v1/raw/records//col/r", null));
    answers.put("purge, empty collection", send("POST", "/store/v1/raw/purge/ns//r", null, "If-Match", rev));
    answers.put("delete, empty collection", send("DELETE", "/store/v1/records/ns//r", null));
    answers.put("batch, empty namespace", send("POST", "/store/v1/raw/batch//x", "[]"));
    answers.put("delete, surrogate in the deleter", send("DELETE", key, "{\"author\":\"x\\ud800\"}", "If-Match", rev));

    SoftAssertions soft = new SoftAssertions();
    answers.forEach((what, r) -> {
      soft.assertThat(r.statusCode()).as(what + " -> " + r.body()).isEqualTo(400);
      soft.assertThat(r.body()).as(what).startsWith("{\"code\":400,\"type\":\"BadRequest\",\"message\":");
    });
    soft.assertAll();
    assertThat(store.listRaw(KeyPrefix.all())).isEqualTo(records);
    assertThat(store.blobs().list()).isEqualTo(blobs);
  }

  /**
   * A raw put of a record that is inconsistent (deletedAt or deletedBlob on a live record, a parent
   * or an ancestor not older than the record) or has a field of the wrong JSON type is 400 with one
   * message naming the problem, on the single route (new key, and over a stored record) and in a
   * batch, on every substrate, and nothing is written
   * (docs/design/0118-a-replicated-record-is-consistent.md).
   */
  @ParameterizedTest
  @ValueSource(strings = {"file", "h2", "postgresql", "mariadb"})
  void anInconsistentOrMistypedRawRecordIs400AndWritesNothing(String backend) throws Exception {
    Store store = startServer(backend);
    Record live = putLive(store);
    List<Record> records = store.listRaw(KeyPrefix.all());
    dev.lethe.store.core.format.RecordJson json = new dev.lethe.store.core.format.RecordJson();
    // the next version of live, as a peer would send it: counter 2, parent and ancestor counter 1
    Body next = Body.Inline.text("next");
    Record good = new Record(live.key(), Kind.DOCUMENT, dev.lethe.store.core.RevisionHash.revision(2, Kind.DOCUMENT,
        next), live.revision(), List.of(live.revision()), next, Meta.EMPTY, null, null, List.of());
    String newer = "{\"counter\" : 7, \"hash\" : \"" + ContentHash.ofUtf8("newer") + "\"}";
    String rev2 = "{\n    \"counter\" : 1,\n    \"hash\" : \"" + live.revision().hash() + "\"\n  }";
    String goodJson = json.format(good);
    assertThat(goodJson).contains("\"parent\" : " + rev2);
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put("has deletedAt", goodJson.replace("\"deletedAt\" : null", "\"deletedAt\" : 5"));
    bad.put("has deletedBlob", json.format(good.withDeletion(null, ContentHash.ofUtf8("kept"))));
    bad.put("its parent 7:", goodJson.replace("\"parent\" : " + rev2, "\"parent\" : " + newer));
    bad.put("its ancestor 7:", goodJson.replace("\"ancestors\" : [ " + rev2, "\"ancestors\" : [ " + newer));
    bad.put("its ancestor 2:", json.format(good.withAncestors(List.of(new dev.lethe.store.core.Revision(2,
        ContentHash.ofUtf8("same counter")), live.revision()))));
    bad.put("'meta.author' must be a string", goodJson.replace("\"author\" : null", "\"author\" : 5"));
    bad.put("'meta.origin' must be a string", goodJson.replace("\"origin\" : null", "\"origin\" : {}"));
    store.blobs().put("kept".getBytes(StandardCharsets.UTF_8));
    List<BlobInfo> blobs = store.blobs().list();

    SoftAssertions soft = new SoftAssertions();
    String ifMatch = revision(live);
    bad.forEach((words, doc) -> {
      try {
        soft.assertThat(doc).as(words).isNotEqualTo(goodJson);
        for (HttpResponse<String> r : List.of(
            send("PUT", "/store/v1/raw/records/ns/col/r", doc, "If-Match", ifMatch),
            send("PUT", "/store/v1/raw/records/ns/col/n", doc.replace("\"ns/col/r\"", "\"ns/col/n\"")),
            send("POST", "/store/v1/raw/batch/ns", "[{\"record\":" + goodJson.replace("\"ns/col/r\"", "\"ns/col/ok\"")
                + "},{\"record\":" + doc + ",\"expected\":" + ifMatch + "}]"))) {
          soft.assertThat(r.statusCode()).as(backend + ": " + words + " -> " + r.body()).isEqualTo(400);
          soft.assertThat(r.body()).as(backend + ": " + words)
              .startsWith("{\"code\":400,\"type\":\"BadRequest\",\"message\":").contains(words);
          if (r.request().method().equals("POST")) {
            soft.assertThat(r.body()).as(backend + ": " + words).contains("Invalid batch item 1: ");
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    soft.assertAll();
    assertThat(store.listRaw(KeyPrefix.all())).isEqualTo(records);
    assertThat(store.blobs().list()).isEqualTo(blobs);
    // the consistent record goes through
    assertThat(send("PUT", "/store/v1/raw/records/ns/col/r", goodJson, "If-Match", ifMatch).statusCode()).isEqualTo(200);
  }
}
