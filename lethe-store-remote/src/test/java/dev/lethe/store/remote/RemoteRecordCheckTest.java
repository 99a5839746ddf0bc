package dev.lethe.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncCorrupt;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client checks every record a server sends (docs/design/0108-records-that-prove-their-content.md):
 * a server that does not check (one built before format 2, or a broken one) serves a record whose
 * body was edited, and the client refuses it on every read and never syncs it; a server that does
 * check answers 500 CorruptRecord, which the client maps back to a corrupt record of that key.
 */
class RemoteRecordCheckTest {

  private static final RecordJson JSON = new RecordJson();
  private HttpServer server;
  /** What the server holds, by key, as the JSON it sends. */
  private final TreeMap<RecordKey, String> held = new TreeMap<>();
  private final RecordKey a = new RecordKey("ns", "col", "a");
  private final RecordKey rec = new RecordKey("ns", "col", "rec");
  private final RecordKey z = new RecordKey("ns", "col", "z");
  private volatile boolean reportCorrupt;

  private static String record(RecordKey k, String text) {
    Body body = Body.Inline.text(text);
    return JSON.format(new Record(k, Kind.DOCUMENT, RevisionHash.revision(1, Kind.DOCUMENT, body, Meta.byAuthor("alice"), List.of()),
        null, List.of(), body, Meta.byAuthor("alice"), null, null, List.of()));
  }

  @BeforeEach
  void start() throws Exception {
    held.put(a, record(a, "a"));
    held.put(rec, record(rec, "v1").replace("\"text\" : \"v1\"", "\"text\" : \"edited by hand\""));
    held.put(z, record(z, "z"));
    String peerId = dev.lethe.store.core.ledger.StoreIds.create();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      String query = exchange.getRequestURI().getRawQuery();
      exchange.getRequestBody().readAllBytes();
      int status = 200;
      String body;
      if (reportCorrupt) {
        status = 500;
        body = "{\"code\":500,\"type\":\"CorruptRecord\",\"message\":\"Corrupt record ns/col/rec at /srv/store/ns/col/rec.json:"
            + " revision hash … does not match\",\"key\":\"ns/col/rec\"}";
      } else if (path.matches("/store/v1(/raw)?/records/ns/col/[a-z]+")) {
        RecordKey k = RecordKey.parse(path.replaceFirst("/store/v1(/raw)?/records/", ""));
        body = held.get(k);
        status = body == null ? 404 : 200;
      } else if (path.matches("/store/v1(/raw)?/records(/ns)?")) {
        // every record after startAfter, on one page: the client cuts it before a corrupt one
        RecordKey after = null;
        if (query != null && query.contains("startAfter=")) {
          after = RecordKey.parse(URLDecoder.decode(query.replaceFirst(".*startAfter=", "").replaceFirst("&.*", ""),
              StandardCharsets.UTF_8));
        }
        StringBuilder b = new StringBuilder("{\"records\":[");
        String sep = "";
        for (var e : (after == null ? held : held.tailMap(after, false)).entrySet()) {
          b.append(sep).append(e.getValue());
          sep = ",";
        }
        body = b.append("],\"nextPageToken\":null}").toString();
      } else if (path.equals("/store/v1/ledger")) {
        // the peer's ledger, so a sync can record it (docs/design/0150-store-identity-and-peers.md)
        body = "{\"id\":\"" + peerId + "\",\"now\":" + System.currentTimeMillis() + "}";
      } else if (path.startsWith("/store/v1/ledger/purged")) {
        body = "{\"entries\":[]}";
      } else if (path.startsWith("/store/v1/ledger/peers/")) {
        exchange.sendResponseHeaders(204, -1);
        exchange.close();
        return;
      } else {
        status = 404;
        body = "{\"code\":404,\"type\":\"NotFound\",\"message\":\"No route\"}";
      }
      FakePeer.answer(exchange, status, body);
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private RemoteStore remote() {
    return RemoteStore.open(url(), Optional.empty());
  }

  @Test
  void aRecordAServerSendsWithABodyThatDoesNotMatchItsRevisionIsRefusedOnEveryRead() {
    RemoteStore store = remote();
    for (var call : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
        () -> store.get(rec), () -> store.getRaw(rec), () -> store.list(KeyPrefix.all()),
        () -> store.listRaw(KeyPrefix.all()), () -> store.listRawPage(KeyPrefix.all(), Optional.of(a), 10))) {
      assertThatThrownBy(call).isInstanceOfSatisfying(CorruptRecordException.class,
          e -> assertThat(e.key()).contains(rec)).hasMessageContaining("ns/col/rec").hasMessageContaining(url())
          .hasMessageContaining("does not match");
    }
    assertThat(store.get(a)).isPresent();
    assertThat(store.listRawPage(KeyPrefix.all(), Optional.empty(), 10).records()).extracting(Record::key)
        .containsExactly(a);
  }

  @Test
  void syncWithAServerThatSendsACorruptRecordCopiesEveryOtherKeyButNeverThatOne() {
    MemoryStore laptop = new MemoryStore(32, Clock.systemUTC());
    SyncReport report = Sync.run(laptop, remote(), KeyPrefix.all(), SyncOptions.DEFAULTS);
    assertThat(report.corrupt()).extracting(SyncCorrupt::key).containsExactly(rec);
    assertThat(report.converged()).isFalse();
    assertThat(laptop.getRaw(rec)).isEmpty();
    assertThat(laptop.getRaw(a)).isPresent();
    assertThat(laptop.getRaw(z)).isPresent();
  }

  @Test
  void aServersCorruptRecordAnswerIsACorruptRecordOfThatKey() {
    reportCorrupt = true;
    assertThatThrownBy(() -> remote().get(rec)).isInstanceOfSatisfying(CorruptRecordException.class,
        e -> assertThat(e.key()).contains(rec)).hasMessageContaining("/srv/store/ns/col/rec.json")
        .hasMessageContaining(url());
  }
}
