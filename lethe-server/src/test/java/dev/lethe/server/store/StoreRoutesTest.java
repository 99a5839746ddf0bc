package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.fs.FsStore;
import java.nio.file.Files;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.tombstone.Tombstones;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store routes of an in-process {@code lethe server} on its default store ({@code
 * file:<data-dir>/store}), over raw HTTP: every route, header, status code and body shape of
 * docs/store.md "Routes", and bad input answered 400 with nothing written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreRoutesTest {
  static final RecordJson RECORD_JSON = new RecordJson();
  private static final AtomicInteger TESTS = new AtomicInteger();

  @TempDir static Path dir;
  LetheServer server;
  final HttpClient http = HttpClient.newHttpClient();
  /** Each test works in a namespace of its own on the one server of this class. */
  String ns;
  String recPath;
  String rawPath;

  @BeforeAll
  void start() {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 4, null, 64 * 1024, null,
        Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
  }

  @BeforeEach
  void namespace() {
    ns = "ns" + TESTS.incrementAndGet();
    recPath = "/store/v1/records/" + ns + "/col/";
    rawPath = "/store/v1/raw/records/" + ns + "/col/";
  }

  @AfterAll
  void stop() {
    server.close();
  }

  HttpResponse<byte[]> send(String method, String path, byte[] body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(b::header);
    // Jetty closes the connection after a request line it cannot parse: do not reuse one for it
    HttpClient client = path.contains("%00") ? HttpClient.newHttpClient() : http;
    return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  HttpResponse<byte[]> send(String method, String path, String body, String... headers) throws Exception {
    Map<String, String> h = new LinkedHashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      h.put(headers[i], headers[i + 1]);
    }
    return send(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), h);
  }

  /**
   * The answer to a request whose body the server refuses: the server answers 413 and closes the
   * connection without reading the rest of the body, and a client still writing it may then see
   * the connection reset before it reads the answer (a transport race, not the server's choice).
   * Only that I/O failure is retried, on a new connection, up to five times.
   */
  private static HttpResponse<byte[]> answerToOversizedBody(HttpRequest request) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofByteArray());
      } catch (java.io.IOException reset) {
        if (attempt == 5) {
          throw reset;
        }
      }
    }
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  static Record record(HttpResponse<byte[]> r) {
    return RECORD_JSON.decode(r.body());
  }

  static String rev(Record r) {
    return "{\"counter\":" + r.revision().counter() + ",\"hash\":\"" + r.revision().hash() + "\"}";
  }

  static String draft(String text) {
    return "{\"kind\":\"document\",\"body\":{\"text\":\"" + text + "\"},\"meta\":{\"author\":\"alice\",\"labels\":{\"l\":\"v\"}}}";
  }

  /** Asserts the store's error shape {@code {code, type, message}}. */
  static JsonNode assertError(HttpResponse<byte[]> r, int code, String messagePart) throws Exception {
    assertThat(r.statusCode()).as(text(r)).isEqualTo(code);
    JsonNode body = dev.lethe.server.ServerHttp.JSON.readTree(r.body());
    List<String> fields = new ArrayList<>();
    body.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("code", "type", "message");
    assertThat(body.get("code").asInt()).isEqualTo(code);
    assertThat(body.get("message").asText()).contains(messagePart);
    return body;
  }

  Record put(String id, String text) throws Exception {
    HttpResponse<byte[]> res = send("PUT", recPath + id, draft(text));
    assertThat(res.statusCode()).as(text(res)).isEqualTo(201);
    return record(res);
  }

  void assertNothingStored() {
    assertThat(server.store().listRaw(KeyPrefix.namespace(ns))).isEmpty();
  }

  // ---- corrupt records (docs/design/0108-records-that-prove-their-content.md) -----------------

  /** Asserts a 500 CorruptRecord naming {@code key}, with the key as its own field. */
  static void assertCorrupt(HttpResponse<byte[]> r, String key) throws Exception {
    assertThat(r.statusCode()).as(text(r)).isEqualTo(500);
    JsonNode body = dev.lethe.server.ServerHttp.JSON.readTree(r.body());
    List<String> fields = new ArrayList<>();
    body.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("code", "type", "message", "key");
    assertThat(body.get("type").asText()).isEqualTo("CorruptRecord");
    assertThat(body.get("key").asText()).isEqualTo(key);
    assertThat(body.get("message").asText()).contains("Corrupt record " + key).contains("does not match");
  }

  @Test
  void aRecordEditedByHandOnTheServerIsNeverServedAsValid() throws Exception {
    Record a = put("a", "v1");
    Record b = put("b", "v1");
    put("c", "v1");
    FsStore fs = (FsStore) server.store();
    Path file = fs.pathOf(b.key());
    Files.writeString(file, Files.readString(file).replace("\"text\" : \"v1\"", "\"text\" : \"v2\""));
    String key = b.key().toString();
    assertCorrupt(send("GET", recPath + "b", null), key);
    assertCorrupt(send("GET", rawPath + "b", null), key);
    assertCorrupt(send("DELETE", recPath + "b", null), key);
    assertCorrupt(send("PUT", recPath + "b", draft("v3"), "If-Match", rev(b)), key);
    // a page stops before it: the records before it are served, the next page names it
    HttpResponse<byte[]> page = send("GET", "/store/v1/raw/records/" + ns + "?pageSize=10", null);
    assertThat(page.statusCode()).isEqualTo(200);
    JsonNode listing = dev.lethe.server.ServerHttp.JSON.readTree(page.body());
    assertThat(listing.get("records")).hasSize(1);
    assertThat(listing.get("records").get(0).get("key").asText()).isEqualTo(a.key().toString());
    String token = listing.get("nextPageToken").asText();
    assertCorrupt(send("GET", "/store/v1/raw/records/" + ns + "?pageSize=10&pageToken=" + token, null), key);
    assertThat(Files.readString(file)).contains("v2");
    assertThat(send("GET", recPath + "a", null).statusCode()).isEqualTo(200);
  }

  @Test
  void aRawPutWhoseRevisionDoesNotProveItsBodyIs400AndWritesNothing() throws Exception {
    Record a = put("a", "v1");
    String forged = RECORD_JSON.format(a).replace("\"text\" : \"v1\"", "\"text\" : \"forged\"")
        .replace(ns + "/col/a", ns + "/col/f");
    assertError(send("PUT", rawPath + "f", forged), 400, "does not match");
    assertThat(send("GET", rawPath + "f", null).statusCode()).isEqualTo(204);
  }

  // ---- consumer surface -----------------------------------------------------------------------

  @Test
  void infoNamesTheFormatTheCapAndTheLargestPage() throws Exception {
    HttpResponse<byte[]> r = send("GET", "/store/v1", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(text(r)).isEqualTo("{\"formatVersion\":3,\"ancestorCap\":32,\"maxPageSize\":1000,\"maxBatchItems\":1000}");
  }

  @Test
  void aConsumerPutCreatesWith201AndTheStampedRecordAndGetReturnsIt() throws Exception {
    HttpResponse<byte[]> created = send("PUT", recPath + "a", draft("v1"));
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
    Record r = record(created);
    assertThat(r.key()).isEqualTo(new RecordKey(ns, "col", "a"));
    assertThat(r.revision().counter()).isEqualTo(1);
    assertThat(r.revision()).isEqualTo(RevisionHash.revision(1, Kind.DOCUMENT, Body.Inline.text("v1"),
        new dev.lethe.store.core.Meta("alice", null, null, null, java.util.Map.of("l", "v")), java.util.List.of()));
    assertThat(r.meta().author()).isEqualTo("alice");
    assertThat(r.meta().labels()).containsEntry("l", "v");
    assertThat(r.meta().created()).isNotNull();
    HttpResponse<byte[]> got = send("GET", recPath + "a", null);
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(text(got)).isEqualTo(RECORD_JSON.format(r));
    assertThat(server.store().get(r.key())).contains(r);
  }

  @Test
  void revisionFieldsOfTheDraftAreIgnoredAndARecordReadBackCanBePutAgain() throws Exception {
    Record r = put("a", "v1");
    String again = RECORD_JSON.format(r).replace("\"text\" : \"v1\"", "\"text\" : \"v2\"");
    HttpResponse<byte[]> edited = send("PUT", recPath + "a", again, "If-Match", rev(r));
    assertThat(edited.statusCode()).as(text(edited)).isEqualTo(200);
    Record r2 = record(edited);
    assertThat(r2.revision().counter()).isEqualTo(2);
    assertThat(r2.parent()).isEqualTo(r.revision());
    assertThat(r2.meta().created()).isEqualTo(r.meta().created());
  }

  @Test
  void theExpectedRevisionMayTravelInTheBody() throws Exception {
    Record r = put("a", "v1");
    String body = "{\"body\":{\"text\":\"v2\"},\"expected\":" + rev(r) + "}";
    HttpResponse<byte[]> edited = send("PUT", recPath + "a", body);
    assertThat(edited.statusCode()).as(text(edited)).isEqualTo(200);
    assertThat(record(edited).kind().name()).isEqualTo("document");
    // the same revision in the header and the body is fine; different ones are not
    Record r2 = record(edited);
    assertThat(send("PUT", recPath + "a", "{\"body\":{\"text\":\"v3\"},\"expected\":" + rev(r2) + "}", "If-Match", rev(r2))
        .statusCode()).isEqualTo(200);
    assertError(send("PUT", recPath + "a", "{\"body\":{\"text\":\"v4\"},\"expected\":" + rev(r) + "}", "If-Match", rev(r2)),
        400, "differ");
  }

  @Test
  void aStaleOrMissingExpectedRevisionOverALiveRecordIs409WithTheStoredRecord() throws Exception {
    Record r = put("a", "v1");
    String stale = "{\"counter\":7,\"hash\":\"" + ContentHash.ofUtf8("x") + "\"}";
    HttpResponse<byte[]> c1 = send("PUT", recPath + "a", draft("v2"), "If-Match", stale);
    assertThat(c1.statusCode()).isEqualTo(409);
    assertThat(record(c1)).isEqualTo(r);
    HttpResponse<byte[]> c2 = send("PUT", recPath + "a", draft("v2"));
    assertThat(c2.statusCode()).isEqualTo(409);
    assertThat(record(c2)).isEqualTo(r);
    HttpResponse<byte[]> c3 = send("PUT", recPath + "a", draft("v2"), "If-None-Match", "*");
    assertThat(c3.statusCode()).isEqualTo(409);
    assertThat(server.store().get(r.key())).contains(r);
  }

  @Test
  void deleteWritesATombstoneAndAConsumerGetOfItIs404() throws Exception {
    Record r = put("a", "v1");
    String stale = "{\"counter\":7,\"hash\":\"" + ContentHash.ofUtf8("x") + "\"}";
    HttpResponse<byte[]> conflict = send("DELETE", recPath + "a", null, "If-Match", stale);
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(record(conflict)).isEqualTo(r);
    HttpResponse<byte[]> deleted = send("DELETE", recPath + "a", "{\"author\":\"carol\"}", "If-Match", rev(r));
    assertThat(deleted.statusCode()).as(text(deleted)).isEqualTo(200);
    Record t = record(deleted);
    assertThat(t.isTombstone()).isTrue();
    assertThat(t.revision().hash()).isEqualTo(Tombstones.HASH);
    assertThat(t.meta().author()).isEqualTo("carol");
    assertError(send("GET", recPath + "a", null), 404, "not found: " + ns + "/col/a");
    // deleting again, or a key never seen, writes nothing: 204
    assertThat(send("DELETE", recPath + "a", null).statusCode()).isEqualTo(204);
    assertThat(send("DELETE", recPath + "never", null).statusCode()).isEqualTo(204);
    assertThat(server.store().getRaw(new RecordKey(ns, "col", "never"))).isEmpty();
  }

  @Test
  void aConditionalPutOverATombstoneOrAnAbsentKeyIs412NeverA404() throws Exception {
    Record r = put("a", "v1");
    Record t = record(send("DELETE", recPath + "a", null));
    HttpResponse<byte[]> overTombstone = send("PUT", recPath + "a", draft("v2"), "If-Match", rev(t));
    assertError(overTombstone, 412, "re-read");
    assertError(send("PUT", recPath + "absent", draft("v2"), "If-Match", rev(r)), 412, "/col/absent");
    assertThat(server.store().getRaw(r.key())).contains(t);
    // without an expected revision it is a recreation, numbered after the delete
    HttpResponse<byte[]> recreated = send("PUT", recPath + "a", draft("v3"), "If-None-Match", "*");
    assertThat(recreated.statusCode()).isEqualTo(201);
    assertThat(record(recreated).revision().counter()).isEqualTo(t.revision().counter() + 1);
    assertThat(record(recreated).parent()).isEqualTo(t.revision());
  }

  @Test
  void theLiveListingPagesWithOpaqueTokensAndSkipsTombstones() throws Exception {
    for (String id : List.of("a", "b", "c", "d", "e")) {
      put(id, id);
    }
    send("DELETE", recPath + "c", null);
    List<String> seen = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      HttpResponse<byte[]> r = send("GET", "/store/v1/records/" + ns + "?pageSize=2" + (token == null ? "" : "&pageToken=" + token), null);
      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode page = dev.lethe.server.ServerHttp.JSON.readTree(r.body());
      assertThat(page.get("records").size()).isLessThanOrEqualTo(2);
      page.get("records").forEach(n -> seen.add(RECORD_JSON.fromJson(n).key().id()));
      token = page.get("nextPageToken").isNull() ? null : page.get("nextPageToken").asText();
      pages++;
    } while (token != null);
    assertThat(seen).containsExactly("a", "b", "d", "e");
    assertThat(pages).isEqualTo(2);
    JsonNode rawPage = dev.lethe.server.ServerHttp.JSON.readTree(send("GET", "/store/v1/raw/records/" + ns + "/col", null).body());
    assertThat(rawPage.get("records")).hasSize(5);
    assertThat(rawPage.get("nextPageToken").isNull()).isTrue();
    JsonNode all = dev.lethe.server.ServerHttp.JSON.readTree(send("GET", "/store/v1/records?pageSize=1000", null).body());
    assertThat(all.get("records")).extracting(n -> RECORD_JSON.fromJson(n).key().namespace()).contains(ns);
  }

  @Test
  void aPageTokenTheServerNeverIssuedForThisListingIs400() throws Exception {
    for (String id : List.of("a", "b", "c")) {
      put(id, id);
    }
    JsonNode first = dev.lethe.server.ServerHttp.JSON.readTree(send("GET", "/store/v1/records/" + ns + "?pageSize=1", null).body());
    String token = first.get("nextPageToken").asText();
    assertThat(send("GET", "/store/v1/records/" + ns + "?pageSize=1&pageToken=" + token, null).statusCode()).isEqualTo(200);
    assertError(send("GET", "/store/v1/raw/records/" + ns + "?pageToken=" + token, null), 400, "pageToken");
    assertError(send("GET", "/store/v1/records/" + ns + "/col?pageToken=" + token, null), 400, "pageToken");
    assertError(send("GET", "/store/v1/records/other?pageToken=" + token, null), 400, "pageToken");
    assertError(send("GET", "/store/v1/records/" + ns + "?pageToken=bm9wZQ", null), 400, "pageToken");
    assertError(send("GET", "/store/v1/records/" + ns + "?pageToken=%25%25", null), 400, "pageToken");
    String forged = PageToken.encode(server.pageTokenKey(), "live", ns + "/*", "other/col/x"); // a key outside the listing
    assertError(send("GET", "/store/v1/records/" + ns + "?pageToken=" + forged, null), 400, "pageToken");
    // startAfter: any key, the page starts after it; not together with a token; a bad key is 400
    JsonNode after = dev.lethe.server.ServerHttp.JSON.readTree(
        send("GET", "/store/v1/records/" + ns + "?startAfter=" + ns + "/col/a", null).body());
    assertThat(after.get("records")).extracting(n -> RECORD_JSON.fromJson(n).key().id()).containsExactly("b", "c");
    assertThat(dev.lethe.server.ServerHttp.JSON.readTree(
        send("GET", "/store/v1/records/" + ns + "?startAfter=a/b/c", null).body()).get("records")).hasSize(3);
    assertError(send("GET", "/store/v1/records/" + ns + "?startAfter=" + ns + "/col/a&pageToken=" + token, null), 400,
        "together");
    assertError(send("GET", "/store/v1/records/" + ns + "?startAfter=a/b", null), 400, "startAfter");
    for (String size : List.of("0", "1001", "-1", "ten", "")) {
      assertError(send("GET", "/store/v1/records/" + ns + "?pageSize=" + size, null), 400, "pageSize");
    }
  }

  // ---- replication surface --------------------------------------------------------------------

  @Test
  void rawReadsShowTombstonesAndAnAbsentKeyIs204NeverA404() throws Exception {
    put("a", "v1");
    Record t = record(send("DELETE", recPath + "a", null));
    HttpResponse<byte[]> got = send("GET", rawPath + "a", null);
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(record(got)).isEqualTo(t);
    HttpResponse<byte[]> absent = send("GET", rawPath + "absent", null);
    assertThat(absent.statusCode()).isEqualTo(204);
    assertThat(absent.body()).isEmpty();
  }

  @Test
  void aRawPutWritesTheRecordVerbatimAndFollowsTheFourRules() throws Exception {
    Record foreign = RECORD_JSON.parse(RECORD_JSON.format(put("src", "x")).replace(ns + "/col/src", ns + "/col/f"));
    Record withTimes = RevisionHash.restamp(foreign.withMeta(foreign.meta().withAuthor("bob").withTimes(1000L, 2000L)));
    String body = RECORD_JSON.format(withTimes);
    assertError(send("PUT", rawPath + "f", body, "If-Match", rev(withTimes)), 412, "/col/f");
    HttpResponse<byte[]> created = send("PUT", rawPath + "f", body);
    assertThat(created.statusCode()).as(text(created)).isEqualTo(201);
    assertThat(record(created)).isEqualTo(withTimes);
    assertThat(server.store().getRaw(withTimes.key())).contains(withTimes);
    // no expected over a stored record (here a tombstone): 409 with it
    Record t = record(send("DELETE", recPath + "f", null));
    HttpResponse<byte[]> conflict = send("PUT", rawPath + "f", body, "If-None-Match", "*");
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(record(conflict)).isEqualTo(t);
    // expecting the tombstone overwrites it: 200
    Record over = withTimes.withLineage(new dev.lethe.store.core.Revision(t.revision().counter() + 1,
        withTimes.revision().hash()), t.revision(), List.of(t.revision()));
    HttpResponse<byte[]> written = send("PUT", rawPath + "f", RECORD_JSON.format(over), "If-Match", rev(t));
    assertThat(written.statusCode()).as(text(written)).isEqualTo(200);
    assertThat(server.store().get(over.key())).contains(over);
  }

  @Test
  void purgeRemovesOnlyTheRevisionItNames() throws Exception {
    Record r = put("a", "v1");
    Record t = record(send("DELETE", recPath + "a", null));
    HttpResponse<byte[]> noExpected = send("POST", "/store/v1/raw/purge/" + ns + "/col/a", null);
    assertThat(noExpected.statusCode()).isEqualTo(409);
    assertThat(record(noExpected)).isEqualTo(t);
    assertThat(send("POST", "/store/v1/raw/purge/" + ns + "/col/a", null, "If-Match", rev(r)).statusCode()).isEqualTo(409);
    HttpResponse<byte[]> purged = send("POST", "/store/v1/raw/purge/" + ns + "/col/a", "{\"expected\":" + rev(t) + "}");
    assertThat(purged.statusCode()).isEqualTo(204);
    assertThat(send("GET", rawPath + "a", null).statusCode()).isEqualTo(204);
    assertThat(send("POST", "/store/v1/raw/purge/" + ns + "/col/a", null, "If-Match", rev(t)).statusCode()).isEqualTo(204);
    assertNothingStored();
  }

  // ---- blobs ----------------------------------------------------------------------------------

  @Test
  void blobsAreContentAddressedAndAnUploadWhoseBytesDoNotMatchItsHashIs400() throws Exception {
    byte[] content = "blob content".getBytes(StandardCharsets.UTF_8);
    String hash = ContentHash.of(content);
    HttpResponse<byte[]> bad = send("PUT", "/store/v1/blobs/" + hash, "other bytes".getBytes(StandardCharsets.UTF_8), Map.of());
    assertError(bad, 400, "SHA-256");
    assertThat(send("HEAD", "/store/v1/blobs/" + hash, null).statusCode()).isEqualTo(404);
    assertThat(server.store().blobs().contains(hash)).isFalse();
    HttpResponse<byte[]> ok = send("PUT", "/store/v1/blobs/" + hash, content, Map.of());
    assertThat(text(ok)).isEqualTo("{\"hash\":\"" + hash + "\",\"length\":" + content.length + "}");
    assertThat(send("HEAD", "/store/v1/blobs/" + hash, null).statusCode()).isEqualTo(200);
    HttpResponse<byte[]> got = send("GET", "/store/v1/blobs/" + hash, null);
    assertThat(got.body()).isEqualTo(content);
    assertError(send("GET", "/store/v1/blobs/" + ContentHash.ofUtf8("none"), null), 404, "no blob");
    assertError(send("GET", "/store/v1/blobs/abc", null), 400, "Invalid blob hash");
    JsonNode list = dev.lethe.server.ServerHttp.JSON.readTree(send("GET", "/store/v1/blobs", null).body());
    assertThat(list.get("blobs").get(0).get("hash").asText()).isEqualTo(hash);
    long uploadedAt = list.get("blobs").get(0).get("storedAt").asLong();
    // a record may point at it; a record pointing at a blob the server lacks is refused
    String blobDraft = "{\"body\":{\"blob\":\"" + hash + "\",\"length\":" + content.length + "}}";
    assertThat(send("PUT", recPath + "b", blobDraft).statusCode()).isEqualTo(201);
    String missing = ContentHash.ofUtf8("missing");
    assertError(send("PUT", recPath + "m", "{\"body\":{\"blob\":\"" + missing + "\",\"length\":3}}"), 400, "is not stored");
    assertThat(server.store().getRaw(new RecordKey(ns, "col", "m"))).isEmpty();
    // the record that started to use the blob refreshed its stored time (docs/design/0120)
    list = dev.lethe.server.ServerHttp.JSON.readTree(send("GET", "/store/v1/blobs", null).body());
    long storedAt = list.get("blobs").get(0).get("storedAt").asLong();
    assertThat(storedAt).isGreaterThanOrEqualTo(uploadedAt);
    // removal is conditional on the stored time
    assertError(send("DELETE", "/store/v1/blobs/" + hash, null), 400, "storedAtOrBefore");
    assertThat(text(send("DELETE", "/store/v1/blobs/" + hash + "?storedAtOrBefore=" + (storedAt - 1), null)))
        .isEqualTo("{\"removed\":false}");
    assertThat(text(send("DELETE", "/store/v1/blobs/" + hash + "?storedAtOrBefore=" + storedAt, null)))
        .isEqualTo("{\"removed\":true}");
  }

  // ---- bad input: 400, one message, nothing written -------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"..", "%2E%2E", ".", "a%2Fb", "a%00b", "a%20b", "%C3%A9", "a*b"})
  void aBadKeyPartIs400AndWritesNothing(String id) throws Exception {
    for (String path : List.of(recPath + id, rawPath + id, "/store/v1/records/" + ns + "/" + id + "/x")) {
      HttpResponse<byte[]> res = send("PUT", path, draft("v"));
      assertThat(res.statusCode()).as(path + ": " + text(res)).isEqualTo(400);
    }
    assertThat(send("GET", recPath + id, null).statusCode()).isEqualTo(400);
    assertThat(send("DELETE", recPath + id, null).statusCode()).isEqualTo(400);
    assertNothingStored();
  }

  @Test
  void aPathJettyCannotParseIs400() throws Exception {
    // answered by Jetty before any route, in the server-wide error shape: Jetty keeps no path for it
    HttpResponse<byte[]> res = send("PUT", recPath + "a%00b", draft("v"));
    assertThat(res.statusCode()).isEqualTo(400);
    assertThat(text(res)).contains("cannot be parsed");
    assertNothingStored();
  }

  @Test
  void theFsStoresReservedNamespaceIs400() throws Exception {
    assertError(send("PUT", "/store/v1/records/_blobs/col/a", draft("v")), 400, "reserved");
    assertError(send("GET", "/store/v1/raw/records/_blobs", null), 400, "reserved");
  }

  @Test
  void aKeyPartOf300CharactersIs400AndWritesNothing() throws Exception {
    assertError(send("PUT", recPath + "x".repeat(300), draft("v")), 400, "longer than 255");
    assertError(send("PUT", rawPath + "x".repeat(300), draft("v")), 400, "longer than 255");
    assertNothingStored();
  }

  @Test
  void badBodiesAndRevisionsAre400WithOneMessageAndWriteNothing() throws Exception {
    String hash = ContentHash.ofUtf8("x");
    assertError(send("PUT", recPath + "a", "{\"body\":{\"text\":\"v\"}"), 400, "truncated");
    assertError(send("PUT", recPath + "a", "{\"body\":{\"text\":\"v\"},\"body\":{\"text\":\"w\"}}"), 400, "appears twice");
    assertError(send("PUT", recPath + "a", "{\"body\":{\"text\":\"v\"}} {}"), 400, "after the JSON");
    assertError(send("PUT", recPath + "a", "{\"body\":{\"text\":\"v\"},\"colour\":1}"), 400, "unknown field 'colour'");
    assertError(send("PUT", recPath + "a", "{\"kind\":\"tombstone\",\"body\":{\"text\":\"\"}}"), 400, "tombstone");
    assertError(send("PUT", recPath + "a", "{\"key\":\"" + ns + "/col/b\",\"body\":{\"text\":\"v\"}}"), 400, "does not match");
    assertError(send("PUT", recPath + "a", "{\"kind\":\"Doc\",\"body\":{\"text\":\"v\"}}"), 400, "Invalid kind");
    assertError(send("PUT", recPath + "a", "{}"), 400, "missing field 'body'");
    assertError(send("PUT", recPath + "a", ""), 400, "empty");
    assertError(send("PUT", recPath + "a", draft("v"), "If-Match", "{\"counter\":1,\"hash\":\"" + hash.substring(1) + "\"}"),
        400, "64 lowercase hex");
    assertError(send("PUT", recPath + "a", draft("v"), "If-Match", "{\"counter\":1}"), 400, "If-Match");
    assertError(send("PUT", recPath + "a", draft("v"), "If-Match", "{\"counter\":1,\"hash\":\"" + hash + "\",\"counter\":2}"),
        400, "twice");
    assertError(send("PUT", recPath + "a", draft("v"), "If-None-Match", "\"abc\""), 400, "If-None-Match");
    assertError(send("PUT", recPath + "a", draft("v"), "If-None-Match", "*", "If-Match",
        "{\"counter\":1,\"hash\":\"" + hash + "\"}"), 400, "together");
    assertError(send("PUT", rawPath + "a", "{\"format\":1}"), 400, "missing field 'key'");
    assertError(send("PUT", rawPath + "a", "{\"format\":4}"), 400, "version 4");
    assertError(send("DELETE", recPath + "a", "{\"expected\":{\"counter\":1,\"hash\":\"" + hash + "\"},\"why\":1}"), 400,
        "unknown field 'why'");
    assertError(send("DELETE", recPath + "a", null, "If-None-Match", "*"), 400, "If-None-Match");
    assertError(send("POST", "/store/v1/raw/purge/" + ns + "/col/a", "[1]"), 400, "JSON object");
    assertNothingStored();
  }

  @Test
  void aBodyOverTheLimitIs413InTheStoreShapeAndWritesNothing() throws Exception {
    String big = draft("x".repeat(70 * 1024));
    assertError(answerToOversizedBody(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + recPath + "a"))
        .PUT(HttpRequest.BodyPublishers.ofString(big)).build()), 413, "limit");
    // the same without a Content-Length (chunked)
    HttpRequest chunked = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + recPath + "a"))
        .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
        .build();
    assertError(answerToOversizedBody(chunked), 413, "");
    assertNothingStored();
  }

  @Test
  void unmatchedStoreRequestsAnswerInTheStoreShape() throws Exception {
    assertError(send("GET", "/store/v1/nothing/here", null), 404, "GET /store/v1/nothing/here");
    HttpResponse<byte[]> wrongMethod = send("PATCH", recPath + "a", draft("v"));
    assertThat(wrongMethod.statusCode()).isIn(404, 405);
    assertError(wrongMethod, wrongMethod.statusCode(), "PATCH");
  }
}
