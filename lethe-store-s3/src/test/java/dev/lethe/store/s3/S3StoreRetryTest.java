package dev.lethe.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.s3.testing.FaultProxy;
import dev.lethe.store.s3.testing.S3TestServer;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every retry path of the S3 store's conditional writes, driven by a fault-injecting proxy in front
 * of S3Mock: a write that loses a race plans again, a 5xx is tried again, and no write sends more
 * than {@link S3Store#MAX_ATTEMPTS} requests.
 */
class S3StoreRetryTest {

  private static final S3TestServer S3 = S3TestServer.get();
  private static final RecordKey KEY = new RecordKey("ns", "col", "rec");

  private FaultProxy proxy;
  private S3Store store;
  /** The same store reached directly, to look behind the proxy. */
  private S3Store direct;

  @BeforeEach
  void open() throws Exception {
    proxy = new FaultProxy(S3.endpoint());
    String prefix = "t-" + UUID.randomUUID();
    store = S3Store.open(S3TestServer.uri(proxy.endpoint(), prefix), S3.settings(), Map.of(), 32, Clock.systemUTC());
    direct = S3Store.open(S3TestServer.uri(S3.endpoint(), prefix), S3.settings(), Map.of(), 32, Clock.systemUTC());
    proxy.reset();
  }

  @AfterEach
  void close() {
    store.close();
    direct.close();
    proxy.close();
  }

  private static Record draft(String text) {
    return Record.draft(KEY, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor("alice"));
  }

  private Record create(String text) {
    PutResult r = direct.put(draft(text), Optional.empty());
    assertThat(r).isInstanceOf(Committed.class);
    return ((Committed) r).record();
  }

  @ParameterizedTest
  @ValueSource(strings = {"412", "409"})
  void aLostRaceIsPlannedAgainFromANewReadAndCommits(String status) {
    FaultProxy.Fault fault = status.equals("412") ? FaultProxy.PRECONDITION_FAILED : FaultProxy.CONDITIONAL_CONFLICT;
    Record v1 = create("one");
    proxy.next("PUT", 3, fault);
    PutResult r = store.put(draft("two"), Optional.of(v1.revision()));
    assertThat(r).isInstanceOf(Committed.class);
    assertThat(((Committed) r).record().revision().counter()).isEqualTo(2);
    // one read and one conditional PUT per attempt: three lost, the fourth won
    assertThat(proxy.count("PUT")).isEqualTo(4);
    assertThat(proxy.count("GET")).isEqualTo(4);
    assertThat(direct.get(KEY).orElseThrow().body()).isEqualTo(Body.Inline.text("two"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"412", "409", "500"})
  void aWriteThatKeepsFailingStopsAfterEightRequestsNamingTheKeyAndWritesNothing(String status) {
    FaultProxy.Fault fault = switch (status) {
      case "412" -> FaultProxy.PRECONDITION_FAILED;
      case "409" -> FaultProxy.CONDITIONAL_CONFLICT;
      default -> FaultProxy.INTERNAL_ERROR;
    };
    proxy.next("PUT", 100, fault);
    assertThatThrownBy(() -> store.put(draft("never"), Optional.empty()))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("Cannot write ns/col/rec in s3://lethe-test/")
        .satisfies(e -> assertThat(e.getCause().getMessage()).startsWith("8 attempts failed, the last with HTTP " + status));
    assertThat(proxy.count("PUT")).isEqualTo(S3Store.MAX_ATTEMPTS);
    assertThat(direct.getRaw(KEY)).isEmpty();
  }

  @Test
  void aDeleteAndAPurgeThatLoseRacesAlsoStopAtEightRequests() {
    Record v1 = create("one");
    proxy.next("PUT", 100, FaultProxy.PRECONDITION_FAILED);
    assertThatThrownBy(() -> store.delete(KEY, Optional.of(v1.revision()))).isInstanceOf(UncheckedIOException.class);
    assertThat(proxy.count("PUT")).isEqualTo(S3Store.MAX_ATTEMPTS);
    proxy.reset();
    Record tomb = ((Deleted) direct.delete(KEY, Optional.of(v1.revision()))).tombstone().orElseThrow();
    proxy.next("DELETE", 100, FaultProxy.PRECONDITION_FAILED);
    assertThatThrownBy(() -> store.purge(KEY, Optional.of(tomb.revision()))).isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("ns/col/rec");
    assertThat(proxy.count("DELETE")).isEqualTo(S3Store.MAX_ATTEMPTS);
    assertThat(direct.getRaw(KEY)).contains(tomb);
  }

  @Test
  void aServerErrorIsTriedAgainAndCommitsOnce() {
    proxy.next("PUT", 2, FaultProxy.INTERNAL_ERROR);
    PutResult r = store.put(draft("one"), Optional.empty());
    assertThat(r).isInstanceOf(Committed.class);
    assertThat(proxy.count("PUT")).isEqualTo(3);
    assertThat(direct.getRaw(KEY)).contains(((Committed) r).record());
  }

  @Test
  void aWriteWhoseAnswerWasLostIsRecognisedOnTheNextReadAsCommitted() {
    proxy.next("PUT", 1, new FaultProxy.AnswerAfterForwarding(500, "InternalError"));
    PutResult r = store.put(draft("one"), Optional.empty());
    // not a Conflict with its own write
    assertThat(r).isInstanceOf(Committed.class);
    assertThat(direct.getRaw(KEY)).contains(((Committed) r).record());
    assertThat(proxy.count("PUT")).isEqualTo(1);
  }

  @Test
  void aKeyThatVanishesBetweenTheReadAndAnUpdateIsPlannedAgainAsAbsent() {
    Record v1 = create("one");
    proxy.next("PUT", 1, new FaultProxy.DeleteFirst());
    // the update's read saw v1; the key was purged before its If-Match PUT: planned again, NotFound
    assertThat(store.put(draft("two"), Optional.of(v1.revision()))).isInstanceOf(NotFound.class);
    assertThat(direct.getRaw(KEY)).isEmpty();
    assertThat(proxy.count("PUT")).isEqualTo(1);
  }

  @Test
  void aKeyThatVanishesBetweenTheReadAndATombstoneIsPlannedAgainAndWritesNothing() {
    Record v1 = create("one");
    proxy.next("PUT", 1, new FaultProxy.DeleteFirst());
    DeleteResult d = store.delete(KEY, Optional.of(v1.revision()));
    assertThat(d).isEqualTo(Deleted.nothingWritten());
    assertThat(direct.getRaw(KEY)).isEmpty();
  }

  @Test
  void aRawPutExpectingARevisionOnAnAbsentKeyIsNotFoundAndWritesNothing() {
    Record v1 = create("one");
    assertThat(direct.purge(KEY, Optional.of(v1.revision()))).isEqualTo(Deleted.nothingWritten());
    proxy.reset();
    assertThat(store.putRaw(v1, Optional.of(v1.revision()))).isInstanceOf(NotFound.class);
    assertThat(proxy.count("PUT")).isZero();
    assertThat(direct.getRaw(KEY)).isEmpty();
  }
}
