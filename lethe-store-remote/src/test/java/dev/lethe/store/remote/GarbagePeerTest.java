package dev.lethe.store.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server that answers garbage — the same page forever, records outside the scope or out of
 * order, another key's record, settings that are not JSON — is a failure of that server
 * ({@link UncheckedIOException} naming it, exit 1 on the CLI), found at once: never a listing or a
 * sync that runs forever, never a record copied under the wrong key, never a usage error, and never
 * the token in a message.
 */
class GarbagePeerTest {

  private static final RecordJson JSON = new RecordJson();
  private static final String TOKEN = "s3cret-token-value";
  private HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();
  /** The answer to a request path (with query): status and body. */
  private volatile Function<String, Object[]> answer = p -> new Object[] {404, "{}"};

  private static String record(RecordKey k) {
    Body body = Body.Inline.text(k.id());
    return JSON.format(new Record(k, Kind.DOCUMENT, RevisionHash.revision(1, Kind.DOCUMENT, body, Meta.byAuthor("alice"), List.of()),
        null, List.of(), body, Meta.byAuthor("alice"), null, null, List.of()));
  }

  private static String page(String nextToken, RecordKey... keys) {
    StringBuilder b = new StringBuilder("{\"records\":[");
    for (int i = 0; i < keys.length; i++) {
      b.append(i == 0 ? "" : ",").append(record(keys[i]));
    }
    return b.append("],\"nextPageToken\":").append(nextToken == null ? "null" : "\"" + nextToken + "\"").append("}")
        .toString();
  }

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      requests.incrementAndGet();
      exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath()
          + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
      Object[] a = path.equals("/store/v1") && !path.contains("?") && answer.apply("settings") == null
          ? new Object[] {200, "{\"formatVersion\":2,\"ancestorCap\":32,\"maxPageSize\":1000,\"maxBatchItems\":1000}"}
          : answer.apply(path);
      FakePeer.answer(exchange, (Integer) a[0], (String) a[1]);
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private RemoteStore remote() {
    return RemoteStore.open("http://127.0.0.1:" + server.getAddress().getPort(), Optional.of(TOKEN));
  }

  private final RecordKey a = new RecordKey("ns", "col", "a");
  private final RecordKey b = new RecordKey("ns", "col", "b");

  @Test
  void aServerThatAnswersTheSamePageForeverFailsTheListingAndTheSyncAtOnce() {
    answer = p -> p.startsWith("/store/v1/raw/records") || p.startsWith("/store/v1/records")
        ? new Object[] {200, page("more", a, b)} : null;
    RemoteStore store = remote();
    assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
      for (var call : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
          () -> store.listRaw(KeyPrefix.all()), () -> store.list(KeyPrefix.namespace("ns")))) {
        assertThatThrownBy(call).isInstanceOf(UncheckedIOException.class)
            .hasMessageContaining("127.0.0.1:" + server.getAddress().getPort())
            .cause().hasMessageContaining("the server sent an unreadable page: record ns/col/a does not come after ns/col/b");
      }
      MemoryStore laptop = new MemoryStore(32, Clock.systemUTC());
      assertThatThrownBy(() -> Sync.run(laptop, store, KeyPrefix.all(), SyncOptions.DEFAULTS))
          .isInstanceOf(UncheckedIOException.class).hasMessageNotContaining(TOKEN);
    });
  }

  @Test
  void aPageOutOfOrderOutsideTheScopeOrLongerThanAskedIsRefused() {
    RecordKey other = new RecordKey("other", "col", "x");
    for (Object[] bad : List.of(
        new Object[] {page(null, b, a), "record ns/col/a does not come after ns/col/b"},
        new Object[] {page(null, a, other), "record other/col/x is not under ns/*"},
        new Object[] {page(null, a, a), "record ns/col/a does not come after ns/col/a"},
        new Object[] {page(null, a, b, new RecordKey("ns", "col", "c")), "3 records, 2 asked for"},
        new Object[] {"{\"records\":{}}", "no 'records' array"},
        new Object[] {"<html>", "the server sent an unreadable page"})) {
      answer = p -> p.contains("records") ? new Object[] {200, bad[0]} : null;
      assertThatThrownBy(() -> remote().listRawPage(KeyPrefix.namespace("ns"), Optional.empty(), 2))
          .as((String) bad[1]).isInstanceOf(UncheckedIOException.class).cause().hasMessageContaining((String) bad[1]);
    }
    answer = p -> p.contains("records") ? new Object[] {200, page(null, a)} : null;
    assertThatThrownBy(() -> remote().listRawPage(KeyPrefix.namespace("ns"), Optional.of(b), 2))
        .isInstanceOf(UncheckedIOException.class).cause()
        .hasMessageContaining("record ns/col/a does not come after ns/col/b (where the page was asked to start)");
  }

  @Test
  void anotherKeysRecordInAnAnswerIsRefusedAndNeverCopied() {
    answer = p -> p.startsWith("/store/v1/raw/records/") || p.startsWith("/store/v1/records/")
        ? new Object[] {200, record(b)}
        : p.startsWith("/store/v1/raw/batch") ? new Object[] {200, "{\"results\":[{\"status\":201,\"record\":"
            + record(b) + "}]}"} : null;
    RemoteStore store = remote();
    for (var call : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
        () -> store.get(a), () -> store.getRaw(a), () -> store.putRaw(JSON.parse(record(a)), Optional.empty()),
        () -> store.putRawBatch(List.of(new RawPut(JSON.parse(record(a)), Optional.empty()))))) {
      assertThatThrownBy(call).isInstanceOf(UncheckedIOException.class).cause()
          .hasMessageContaining("the server sent the record of ns/col/b for ns/col/a");
    }
  }

  @Test
  void settingsThatAreNotJsonOrNoCapAreTheServersFailureNotAUsageError() {
    for (String bad : List.of("<html>hello</html>", "{\"ancestorCap\":0}", "{\"ancestorCap\":\"32\"}", "{}")) {
      answer = p -> p.equals("settings") ? new Object[] {200, bad} : p.equals("/store/v1") ? new Object[] {200, bad}
          : new Object[] {404, "{}"};
      assertThatThrownBy(() -> remote().ancestorCap()).as(bad).isInstanceOf(UncheckedIOException.class);
    }
    answer = p -> p.equals("settings") || p.equals("/store/v1") ? new Object[] {200, "<html>"} : new Object[] {404, "{}"};
    assertThatThrownBy(() -> remote().putRawBatch(List.of(new RawPut(JSON.parse(record(a)), Optional.empty()))))
        .isInstanceOf(UncheckedIOException.class).cause().hasMessageContaining("unreadable settings");
  }

  @Test
  void anInconsistentRecordIsRefusedBeforeAnyRequest() {
    Record r = JSON.parse(record(a)).withDeletion(5L, null);
    int before = requests.get();
    assertThatThrownBy(() -> remote().putRaw(r, Optional.empty())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has deletedAt 5");
    assertThatThrownBy(() -> remote().putRawBatch(List.of(new RawPut(r, Optional.empty()))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(requests.get()).isEqualTo(before);
  }

  /**
   * A server that sends an answer's headers and then stalls mid-body: the JDK client's request
   * timeout covers only the headers, so this held the caller forever; now the whole answer is due
   * within the request timeout, and the caller's thread is not left interrupted
   * (docs/design/0416-an-answer-that-stalls.md).
   */
  @Test
  void anAnswerThatStallsMidBodyTimesOutAndLeavesTheThreadUninterrupted() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    HttpServer stalling = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    stalling.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    stalling.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 100);
      exchange.getResponseBody().write("{\"rec".getBytes(StandardCharsets.UTF_8));
      exchange.getResponseBody().flush();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
    });
    stalling.start();
    try {
      RemoteStore store = RemoteStore.open("http://127.0.0.1:" + stalling.getAddress().getPort(), Optional.of(TOKEN),
          Duration.ofSeconds(2));
      assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
        for (var call : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () -> store.getRaw(a), () -> store.blobs().get(dev.lethe.store.core.ContentHash.ofUtf8("x")))) {
          assertThatThrownBy(call).isInstanceOf(UncheckedIOException.class).hasMessageNotContaining(TOKEN).cause()
              .hasMessageContaining("timed out: the answer did not arrive whole within 2 s");
          assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
      });
    } finally {
      release.countDown();
      stalling.stop(0);
    }
  }
}
