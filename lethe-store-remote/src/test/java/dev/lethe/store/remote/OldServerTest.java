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
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server that predates replication: its consumer routes answer, its raw routes are 404 (or
 * 405). The remote store never falls back to a consumer route; it fails with the upgrade message,
 * and a sync against such a server writes nothing on either side.
 */
class OldServerTest {

  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private volatile int rawStatus = 404;
  private final RecordKey key = new RecordKey("ns", "col", "rec");

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      requests.add(exchange.getRequestMethod() + " " + path);
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      authorizations.add(auth == null ? "" : auth);
      exchange.getRequestBody().readAllBytes();
      byte[] body;
      int status;
      if (path.startsWith("/store/v1/raw/")) {
        status = rawStatus;
        body = "{\"code\":404,\"type\":\"NotFound\",\"message\":\"No route\"}".getBytes(StandardCharsets.UTF_8);
      } else if (path.startsWith("/store/v1/records")) {
        // an old server that still serves consumer listings and reads: an empty store
        status = path.equals("/store/v1/records/ns/col/rec") ? 404 : 200;
        body = (status == 200 ? "{\"records\":[],\"nextPageToken\":null}"
            : "{\"code\":404,\"type\":\"NotFound\",\"message\":\"not found\"}").getBytes(StandardCharsets.UTF_8);
      } else {
        status = 404;
        body = "{}".getBytes(StandardCharsets.UTF_8);
      }
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private RemoteStore remote(Optional<String> token) {
    return RemoteStore.open("http://127.0.0.1:" + server.getAddress().getPort(), token);
  }

  private static Record record(RecordKey k) {
    Body body = Body.Inline.text("v");
    return new Record(k, Kind.DOCUMENT, dev.lethe.store.core.RevisionHash.revision(1, Kind.DOCUMENT, body), null,
        List.of(), body, Meta.EMPTY,
        null, null, List.of());
  }

  @Test
  void everyRawCallFailsWithTheUpgradeMessageAndNeverFallsBackToAConsumerRoute() {
    RemoteStore store = remote(Optional.empty());
    for (int status : List.of(404, 405)) {
      rawStatus = status;
      requests.clear();
      for (Runnable call : List.<Runnable>of(
          () -> store.getRaw(key),
          () -> store.listRaw(KeyPrefix.all()),
          () -> store.listRawPage(KeyPrefix.namespace("ns"), Optional.empty(), 10),
          () -> store.putRaw(record(key), Optional.empty()),
          () -> store.purge(key, Optional.of(new Revision(2, ContentHash.ofUtf8("x")))))) {
        assertThatThrownBy(call::run)
            .isInstanceOf(ServerTooOldException.class)
            .hasMessageContaining("from http://127.0.0.1:")
            .cause().hasMessageContaining("too old for replication (HTTP " + status)
            .hasMessageContaining("upgrade");
      }
      assertThat(requests).hasSize(5).allSatisfy(r -> assertThat(r).contains(" /store/v1/raw/"));
    }
  }

  @Test
  void aSyncAgainstAnOldServerFailsWithTheUpgradeMessageAndWritesNothing() {
    MemoryStore laptop = new MemoryStore(32, Clock.systemUTC());
    laptop.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("mine"), Meta.EMPTY), Optional.empty());
    laptop.delete(key, Optional.empty());
    List<Record> before = laptop.listRaw(KeyPrefix.all());
    assertThatThrownBy(() -> Sync.run(laptop, remote(Optional.empty()), KeyPrefix.all(), new SyncOptions(8, Progress.NONE)))
        .isInstanceOf(ServerTooOldException.class);
    assertThatThrownBy(() -> Sync.run(remote(Optional.empty()), laptop, KeyPrefix.all(), new SyncOptions(8, Progress.NONE)))
        .isInstanceOf(ServerTooOldException.class);
    assertThat(laptop.listRaw(KeyPrefix.all())).isEqualTo(before);
    assertThat(requests).allSatisfy(r -> assertThat(r).startsWith("GET "));
  }

  @Test
  void aConsumer404IsAnAbsentKeyNotAnError() {
    assertThat(remote(Optional.empty()).get(key)).isEmpty();
  }

  @Test
  void theTokenGoesOnEveryRequestAndIntoNoMessage() {
    RemoteStore store = remote(Optional.of("s3cret-token"));
    assertThat(store.toString()).doesNotContain("s3cret");
    assertThatThrownBy(() -> store.getRaw(key)).satisfies(e -> {
      assertThat(e.getMessage()).doesNotContain("s3cret");
      assertThat(e.getCause().getMessage()).doesNotContain("s3cret");
    });
    store.get(key);
    assertThat(authorizations).isNotEmpty().allSatisfy(a -> assertThat(a).isEqualTo("Bearer s3cret-token"));
    RemoteStore anonymous = remote(Optional.of("  "));
    anonymous.get(key);
    assertThat(authorizations.get(authorizations.size() - 1)).isEmpty();
  }

  @Test
  void aServerThatCannotBeReachedIsAnIoErrorNamingIt() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    RemoteStore store = RemoteStore.open("http://127.0.0.1:" + port, Optional.empty());
    assertThatThrownBy(() -> store.get(key))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageContaining("http://127.0.0.1:" + port)
        .cause().hasMessageContaining("cannot connect");
  }

  @Test
  void onlyHttpUrlsWithAHostAndNoCredentialsOrQueryAreStoreUris() {
    for (String bad : List.of("http://", "ftp://host", "http://user:pw@host:1", "http://host:1/?x=1", "http://host:1/#f",
        "http:///path")) {
      assertThatThrownBy(() -> RemoteStore.open(bad, Optional.empty())).as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageNotContaining("pw@");
    }
    assertThat(RemoteStore.open("https://h:9001/", Optional.empty()).toString()).isEqualTo("RemoteStore[https://h:9001]");
    assertThat(RemoteStore.open("http://h:9001/lethe/store/v1", Optional.empty()).toString())
        .isEqualTo("RemoteStore[http://h:9001/lethe]");
  }
}
