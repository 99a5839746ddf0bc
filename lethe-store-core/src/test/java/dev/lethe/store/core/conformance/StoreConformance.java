package dev.lethe.store.core.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobGc;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.blob.GcReport;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectReport;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.reset.Reset;
import dev.lethe.store.core.reset.ResetReport;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncCorrupt;
import dev.lethe.store.core.sync.SyncConflict;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.core.testing.InterleavingStore;
import dev.lethe.store.core.testing.MutableClock;
import dev.lethe.store.core.tombstone.Tombstones;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store conformance suite: every case of docs/design/0204-store-cases.md, end to end through one substrate.
 * A substrate's tests extend this class once per ancestor cap (32 and 3), implementing {@link
 * #open}. Every substrate makes its decisions through the same planners; this suite proves it.
 */
public abstract class StoreConformance {

  /** The ancestor cap this run uses for {@link #store}. */
  protected final int cap;
  /** The clock every store of this run uses. */
  protected final MutableClock clock = MutableClock.at2026();
  /** The store under test. */
  protected Store store;

  private final RecordKey key = new RecordKey("ns", "col", "rec");
  private final RecordKey sibling = new RecordKey("ns", "col", "sibling");

  /** @param cap the ancestor cap of the store under test */
  protected StoreConformance(int cap) {
    this.cap = cap;
  }

  /**
   * Opens a new, empty store of the substrate. Each call returns a distinct store.
   *
   * @param ancestorCap the store's cap
   * @param clock the store's clock
   */
  protected abstract Store open(int ancestorCap, MutableClock clock) throws Exception;

  /**
   * Rewrites the stored JSON of {@code k}'s record in {@code s} behind the store's back, as a
   * hand edit or damage would (docs/store-format.md): {@code edit} gets the record's
   * docs/store-format.md JSON and returns the new one. Substrates whose stored form a test can
   * reach override this and {@link #canTamper}; the integrity cases are skipped elsewhere.
   */
  protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
    throw new UnsupportedOperationException("this substrate's stored records cannot be edited by a test");
  }

  /** Whether {@link #tamper} is supported. */
  protected boolean canTamper() {
    return false;
  }

  /**
   * Whether the substrate's backing server answers the seeded gc oracle's concurrent writers and
   * gc; false only where the test server itself stops answering under them (S3Mock), so that case
   * proves nothing there. The deterministic gc race cases run everywhere.
   */
  protected boolean serverAnswersConcurrentGc() {
    return true;
  }

  @BeforeEach
  void openStore() throws Exception {
    store = open(cap, clock);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static Record draft(RecordKey k, String text) {
    return Record.draft(k, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor("alice"));
  }

  private static Record draft(RecordKey k, Kind kind, String text, String author) {
    return Record.draft(k, kind, Body.Inline.text(text), Meta.byAuthor(author));
  }

  private static Record committed(PutResult r) {
    assertThat(r).isInstanceOf(Committed.class);
    return ((Committed) r).record();
  }

  private Record create(Store s, RecordKey k, String text) {
    return committed(s.put(draft(k, text), Optional.empty()));
  }

  private Record edit(Store s, Record base, String text) {
    return committed(s.put(draft(base.key(), base.kind(), text, "alice"),
        Optional.of(base.revision())));
  }

  private Record tombstoneOf(Store s, Record live) {
    DeleteResult d = s.delete(live.key(), Optional.of(live.revision()));
    assertThat(d).isInstanceOf(Deleted.class);
    return ((Deleted) d).tombstone().orElseThrow();
  }

  private Record raw(Store s, RecordKey k) {
    return s.getRaw(k).orElseThrow();
  }

  /** A record as another store would have written it: an arbitrary lineage, kept verbatim. */
  private static Record foreign(RecordKey k, long counter, String text, List<Revision> ancestors) {
    Body body = Body.Inline.text(text);
    Meta meta = new Meta("bob", "peer", 1000L, 2000L, java.util.Map.of("l", "v"));
    List<RecordKey> links = List.of(new RecordKey("ns", "col", "other"));
    Revision rev = RevisionHash.revision(counter, Kind.DOCUMENT, body, meta, links);
    return new Record(k, Kind.DOCUMENT, rev, ancestors.isEmpty() ? null : ancestors.get(0),
        ancestors, body, meta, null, null, links);
  }

  private static Revision rev(long counter, String seed) {
    return new Revision(counter, ContentHash.ofUtf8(seed));
  }

  // ---- consumer surface ---------------------------------------------------------------------

  @Test
  void firstPutCommitsCounterOneWithStoreStampedTimes() {
    Record r = create(store, key, "v1");
    assertThat(r.revision()).isEqualTo(RevisionHash.revision(1, Kind.DOCUMENT, Body.Inline.text("v1"), Meta.byAuthor("alice"), List.of()));
    assertThat(r.parent()).isNull();
    assertThat(r.ancestors()).isEmpty();
    assertThat(r.meta().created()).isEqualTo(clock.millis());
    assertThat(r.meta().updated()).isEqualTo(clock.millis());
    assertThat(store.get(key)).contains(r);
  }

  @Test
  void putWithExpectedOnAbsentKeyIsNotFoundAndWritesNothing() {
    assertThat(store.put(draft(key, "v"), Optional.of(rev(1, "x")))).isInstanceOf(NotFound.class);
    assertThat(store.getRaw(key)).isEmpty();
  }

  @Test
  void case01DeleteOfLiveRecordHidesItFromGetAndListButNotItsSibling() {
    create(store, key, "v1");
    Record s = create(store, sibling, "s");
    assertThat(store.delete(key, Optional.empty())).isInstanceOf(Deleted.class);
    assertThat(store.get(key)).isEmpty();
    assertThat(store.list(KeyPrefix.namespace("ns"))).extracting(Record::key).containsExactly(sibling);
    assertThat(store.get(sibling)).contains(s);
  }

  @Test
  void case02DeleteWritesATombstoneVisibleOnTheRawSurface() {
    Record r = create(store, key, "v1");
    clock.advance(Duration.ofSeconds(5));
    store.delete(key, Optional.empty());
    Record t = raw(store, key);
    assertThat(t.kind()).isEqualTo(Kind.TOMBSTONE);
    assertThat(t.revision().counter()).isEqualTo(r.revision().counter() + 1);
    assertThat(t.revision().hash())
        .isEqualTo(ContentHash.of("lethe:tombstone:v1".getBytes(StandardCharsets.UTF_8)));
    assertThat(t.body()).isEqualTo(Body.EMPTY);
    assertThat(t.parent()).isEqualTo(r.revision());
    assertThat(t.ancestors().get(0)).isEqualTo(r.revision());
    assertThat(t.deletedAt()).isEqualTo(clock.millis());
    assertThat(store.listRaw(KeyPrefix.all())).extracting(Record::key).containsExactly(key);
  }

  @Test
  void case03DeleteWithStaleExpectedConflictsAndWritesNothing() {
    Record r = create(store, key, "v1");
    DeleteResult d = store.delete(key, Optional.of(rev(7, "stale")));
    assertThat(d).isEqualTo(new Conflict(r));
    assertThat(store.get(key)).contains(r);
  }

  @Test
  void case04DeleteOfAbsentKeyIsDeletedAndWritesNoTombstone() {
    assertThat(store.delete(key, Optional.empty())).isEqualTo(Deleted.nothingWritten());
    assertThat(store.delete(key, Optional.of(rev(1, "x")))).isEqualTo(Deleted.nothingWritten());
    assertThat(store.getRaw(key)).isEmpty();
  }

  @Test
  void case05DeleteOfTombstoneIsDeletedAndLeavesItsRevision() {
    create(store, key, "v1");
    store.delete(key, Optional.empty());
    Record t = raw(store, key);
    clock.advance(Duration.ofMinutes(1));
    assertThat(store.delete(key, Optional.empty())).isEqualTo(Deleted.nothingWritten());
    assertThat(raw(store, key)).isEqualTo(t);
  }

  @Test
  void case06TwoStoresDeletingTheSameRevisionProduceIdenticalTombstoneRevisions() throws Exception {
    Store other = open(cap, clock);
    Record r = create(store, key, "v1");
    assertThat(other.putRaw(r, Optional.empty())).isInstanceOf(Committed.class);
    store.delete(key, Optional.empty());
    clock.advance(Duration.ofHours(3));
    other.deleteAs(key, Optional.empty(), Optional.of("bob"));
    assertThat(raw(store, key).revision()).isEqualTo(raw(other, key).revision());
    assertThat(raw(store, key).deletedAt()).isNotEqualTo(raw(other, key).deletedAt());
  }

  @Test
  void case07TombstoneRevisionNeverEqualsAnEmptyBodyEditAtTheSameCounter() {
    Record r = create(store, key, "v1");
    Record empty = edit(store, r, "");
    Record t = tombstoneOf(store, create(store, sibling, "v1"));
    assertThat(empty.revision().counter()).isEqualTo(t.revision().counter());
    assertThat(empty.revision()).isNotEqualTo(t.revision());
    assertThat(Tombstones.HASH).isNotEqualTo(ContentHash.of(new byte[0]));
  }

  @Test
  void case08PutWithoutExpectedOverTombstoneRecreatesNewerThanTheDelete() {
    Record r = create(store, key, "v1");
    Record t = tombstoneOf(store, r);
    clock.advance(Duration.ofMinutes(10));
    Record r2 = create(store, key, "v2");
    assertThat(r2.revision().counter()).isEqualTo(t.revision().counter() + 1);
    assertThat(r2.parent()).isEqualTo(t.revision());
    assertThat(r2.ancestors().get(0)).isEqualTo(t.revision());
    assertThat(r2.deletedAt()).isNull();
    assertThat(r2.meta().created()).isEqualTo(clock.millis()).isNotEqualTo(r.meta().created());
    assertThat(store.get(key)).contains(r2);
  }

  @Test
  void case09PutWithAnyExpectedOverTombstoneIsNotFoundAndLeavesIt() {
    Record t = tombstoneOf(store, create(store, key, "v1"));
    assertThat(store.put(draft(key, "v2"), Optional.of(t.revision()))).isInstanceOf(NotFound.class);
    assertThat(store.put(draft(key, "v2"), Optional.of(t.parent()))).isInstanceOf(NotFound.class);
    assertThat(store.put(draft(key, "v2"), Optional.of(rev(9, "x")))).isInstanceOf(NotFound.class);
    assertThat(raw(store, key)).isEqualTo(t);
  }

  @Test
  void case10PutOfATombstoneKindRecordIsRejectedAndWritesNothing() {
    Record bad = Record.draft(key, Kind.TOMBSTONE, Body.EMPTY, Meta.EMPTY);
    assertThatThrownBy(() -> store.put(bad, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tombstone");
    assertThat(store.getRaw(key)).isEmpty();
    Record r = create(store, key, "v1");
    assertThatThrownBy(() -> store.put(bad, Optional.of(r.revision())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.getRaw(key)).contains(r);
  }

  @Test
  void case11PutWithCurrentExpectedCommitsTheNextCounterAndStampsUpdated() {
    Record r = create(store, key, "v1");
    clock.advance(Duration.ofSeconds(30));
    Record r2 = edit(store, r, "v2");
    assertThat(r2.revision()).isEqualTo(RevisionHash.revision(2, Kind.DOCUMENT, Body.Inline.text("v2"), Meta.byAuthor("alice"), List.of()));
    assertThat(r2.parent()).isEqualTo(r.revision());
    assertThat(r2.ancestors()).containsExactly(r.revision());
    assertThat(r2.meta().created()).isEqualTo(r.meta().created());
    assertThat(r2.meta().updated()).isEqualTo(clock.millis());
  }

  @Test
  void case12PutWithStaleOrNoExpectedOverLiveRecordConflicts() {
    Record r = create(store, key, "v1");
    assertThat(store.put(draft(key, "v2"), Optional.of(rev(1, "stale")))).isEqualTo(new Conflict(r));
    assertThat(store.put(draft(key, "v2"), Optional.empty())).isEqualTo(new Conflict(r));
    assertThat(store.get(key)).contains(r);
  }

  @Test
  void case13TombstoneOfBlobBackedRecordPinsTheBlobAndRecreationClearsIt() {
    BlobRef blob = store.blobs().put("big content".getBytes(StandardCharsets.UTF_8));
    Record r = committed(store.put(
        Record.draft(key, Kind.DOCUMENT, blob.body(), Meta.byAuthor("alice")), Optional.empty()));
    assertThat(r.revision()).isEqualTo(RevisionHash.revision(1, Kind.DOCUMENT, blob.body(), Meta.byAuthor("alice"), List.of()));
    Record t = tombstoneOf(store, r);
    assertThat(t.deletedBlob()).isEqualTo(blob.hash());
    assertThat(t.body()).isEqualTo(Body.EMPTY);
    Record r2 = create(store, key, "small");
    assertThat(r2.deletedBlob()).isNull();
  }

  @Test
  void case14DeleteAsNamesTheDeleterAndDeleteKeepsTheLastAuthor() {
    create(store, key, "v1");
    create(store, sibling, "s1");
    store.deleteAs(key, Optional.empty(), Optional.of("carol"));
    store.delete(sibling, Optional.empty());
    assertThat(raw(store, key).meta().author()).isEqualTo("carol");
    assertThat(raw(store, sibling).meta().author()).isEqualTo("alice");
  }

  // ---- replication surface ------------------------------------------------------------------

  @Test
  void case15PutRawOnAbsentKeyWithoutExpectedWritesVerbatim() {
    Record x = foreign(key, 5, "x", List.of(rev(4, "a")));
    assertThat(store.putRaw(x, Optional.empty())).isEqualTo(new Committed(x));
    assertThat(raw(store, key)).isEqualTo(x);
  }

  @Test
  void case16PutRawOnAbsentKeyWithExpectedIsNotFound() {
    assertThat(store.putRaw(foreign(key, 5, "x", List.of()), Optional.of(rev(4, "a"))))
        .isInstanceOf(NotFound.class);
    assertThat(store.getRaw(key)).isEmpty();
  }

  @Test
  void case17PutRawExpectingTheTombstoneOverwritesIt() {
    Record t = tombstoneOf(store, create(store, key, "v1"));
    Record x = foreign(key, 3, "x", List.of(t.revision()));
    assertThat(store.putRaw(x, Optional.of(t.revision()))).isInstanceOf(Committed.class);
    assertThat(store.get(key)).contains(x);
  }

  @Test
  void case18PutRawWithoutExpectedOverTombstoneConflictsInsteadOfRecreating() {
    Record t = tombstoneOf(store, create(store, key, "v1"));
    assertThat(store.putRaw(foreign(key, 1, "v1", List.of()), Optional.empty()))
        .isEqualTo(new Conflict(t));
    assertThat(raw(store, key)).isEqualTo(t);
  }

  @Test
  void case19PutRawStoresRevisionTimesAuthorAndDeletedAtExactlyAsGiven() {
    Record r = create(store, key, "v1");
    Record t = new Record(key, Kind.TOMBSTONE, new Revision(9, Tombstones.HASH), rev(8, "p"),
        List.of(rev(8, "p")), Body.EMPTY, new Meta("mallory", "elsewhere", 11L, 22L, null),
        33L, null, List.of());
    assertThat(store.putRaw(t, Optional.of(r.revision()))).isEqualTo(new Committed(t));
    assertThat(raw(store, key)).isEqualTo(t);
    Record live = foreign(key, 10, "again", List.of(t.revision()));
    store.putRaw(live, Optional.of(t.revision()));
    assertThat(raw(store, key)).isEqualTo(live);
    assertThat(raw(store, key).meta().created()).isEqualTo(1000L);
  }

  @Test
  void case20PutRawNormalisesAncestorsDedupedWithoutSelfNewestFirstCapped() {
    List<Revision> messy = new ArrayList<>();
    for (int i = 1; i <= cap + 5; i++) {
      messy.add(rev(i, "a" + i));
      messy.add(rev(i, "a" + i));
    }
    Record x0 = foreign(key, 100, "x", List.of());
    messy.add(x0.revision());
    java.util.Collections.shuffle(messy, new java.util.Random(7));
    Record x = x0.withAncestors(messy);
    Record stored = committed(store.putRaw(x, Optional.empty()));
    List<Revision> want = new ArrayList<>();
    for (int i = cap + 5; i > 5; i--) {
      want.add(rev(i, "a" + i));
    }
    assertThat(stored.ancestors()).containsExactlyElementsOf(want);
    assertThat(raw(store, key).ancestors()).containsExactlyElementsOf(want);
  }

  @Test
  void case21PurgeOfTheTombstoneRevisionRemovesItPhysically() {
    Record t = tombstoneOf(store, create(store, key, "v1"));
    assertThat(store.purge(key, Optional.of(t.revision()))).isInstanceOf(Deleted.class);
    assertThat(store.getRaw(key)).isEmpty();
    assertThat(store.listRaw(KeyPrefix.all())).isEmpty();
  }

  @Test
  void case22PurgeOfAbsentKeyIsANoOp() {
    assertThat(store.purge(key, Optional.of(rev(1, "x")))).isEqualTo(Deleted.nothingWritten());
    assertThat(store.purge(key, Optional.empty())).isEqualTo(Deleted.nothingWritten());
  }

  @Test
  void case23PurgeOfTheOldTombstoneAfterRecreationConflictsAndKeepsTheRecreation() {
    Record t = tombstoneOf(store, create(store, key, "v1"));
    Record r2 = create(store, key, "v2");
    assertThat(store.purge(key, Optional.of(t.revision()))).isEqualTo(new Conflict(r2));
    assertThat(store.get(key)).contains(r2);
  }

  @Test
  void purgeWithoutExpectedNeverRemovesAStoredRecord() {
    Record r = create(store, key, "v1");
    assertThat(store.purge(key, Optional.empty())).isEqualTo(new Conflict(r));
    assertThat(store.get(key)).contains(r);
  }

  @Test
  void case24AnEditChainLongerThanTheCapKeepsExactlyTheNewestCapAncestors() {
    Record r = create(store, key, "e0");
    List<Revision> history = new ArrayList<>();
    history.add(r.revision());
    for (int i = 1; i <= cap + 5; i++) {
      r = edit(store, r, "e" + i);
      history.add(r.revision());
    }
    List<Revision> want = new ArrayList<>(history.subList(history.size() - 1 - cap, history.size() - 1));
    java.util.Collections.reverse(want);
    assertThat(raw(store, key).ancestors()).containsExactlyElementsOf(want);
  }

  // ---- sync ---------------------------------------------------------------------------------

  private SyncReport sync(Store a, Store b) {
    return Sync.run(a, b, KeyPrefix.all(), SyncOptions.DEFAULTS);
  }

  @Test
  void case25AStalePeerTakesTheTombstoneInEitherSyncDirection() throws Exception {
    for (boolean forward : new boolean[] {true, false}) {
      Store a = open(cap, clock);
      Store b = open(cap, clock);
      Record r = create(a, key, "v1");
      b.putRaw(r, Optional.empty());
      Record t = tombstoneOf(a, r);
      SyncReport report = forward ? sync(a, b) : sync(b, a);
      assertThat(report.fastForwarded()).isEqualTo(1);
      assertThat(report.converged()).isTrue();
      assertThat(raw(a, key)).isEqualTo(t);
      assertThat(raw(b, key).revision()).isEqualTo(t.revision());
      assertThat(b.get(key)).isEmpty();
    }
  }

  @Test
  void aDeleteLandingOnTheDestinationDuringACopyIsReplannedNotResurrected() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    // Between sync's raw listing (B empty) and its copy, B receives r and deletes it.
    Store racingB = new InterleavingStore(b, key, () -> {
      b.putRaw(r, Optional.empty());
      b.delete(key, Optional.of(r.revision()));
    });
    SyncReport report = Sync.run(a, racingB, KeyPrefix.all(), SyncOptions.DEFAULTS);
    assertThat(report.converged()).isTrue();
    assertThat(report.copied()).isZero();
    assertThat(report.fastForwarded()).isEqualTo(1);
    assertThat(raw(b, key).isTombstone()).isTrue();
    assertThat(raw(a, key)).isEqualTo(raw(b, key));
  }

  @Test
  void syncCopiesTheBlobOfABlobBackedRecordAndTheBlobATombstonePins() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    BlobRef blob = a.blobs().put("blob body".getBytes(StandardCharsets.UTF_8));
    Record r = committed(a.put(Record.draft(key, Kind.DOCUMENT, blob.body(), Meta.EMPTY), Optional.empty()));
    BlobRef pinned = a.blobs().put("pinned body".getBytes(StandardCharsets.UTF_8));
    Record p = committed(a.put(Record.draft(sibling, Kind.DOCUMENT, pinned.body(), Meta.EMPTY), Optional.empty()));
    tombstoneOf(a, p);
    assertThat(sync(a, b).copied()).isEqualTo(2);
    assertThat(b.get(key)).contains(r);
    assertThat(b.blobs().get(blob.hash())).hasValueSatisfying(
        v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("blob body"));
    assertThat(b.blobs().contains(pinned.hash())).isTrue();
  }

  @Test
  void case26DeleteVersusEditOfTheSameRevisionIsAConflictAndNeitherSideIsWritten() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record t = tombstoneOf(a, r);
    Record e = edit(b, r, "v2");
    SyncReport report = sync(a, b);
    assertThat(report.conflicts()).hasSize(1);
    assertThat(report.conflicts().get(0).key()).isEqualTo(key);
    assertThat(report.converged()).isFalse();
    assertThat(raw(a, key)).isEqualTo(t);
    assertThat(raw(b, key)).isEqualTo(e);
  }

  @Test
  void case27TombstonesAtDifferentCountersConvergeOnTheHigher() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record ta = tombstoneOf(a, r);
    // B edited twice and deleted: a higher, unrelated tombstone.
    Record e = edit(b, edit(b, r, "v2"), "v3");
    Record tb = tombstoneOf(b, e);
    assertThat(tb.revision()).isGreaterThan(ta.revision());
    sync(a, b);
    assertThat(raw(a, key).revision()).isEqualTo(tb.revision());
    assertThat(raw(b, key).revision()).isEqualTo(tb.revision());
  }

  @Test
  void case27UnrelatedTombstonesAtDifferentCountersConvergeOnTheHigher() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record ta = new Record(key, Kind.TOMBSTONE, new Revision(3, Tombstones.HASH), rev(2, "x"),
        List.of(rev(2, "x")), Body.EMPTY, Meta.EMPTY, 5L, null, List.of());
    Record tb = new Record(key, Kind.TOMBSTONE, new Revision(6, Tombstones.HASH), rev(5, "y"),
        List.of(rev(5, "y")), Body.EMPTY, Meta.EMPTY, 6L, null, List.of());
    a.putRaw(ta, Optional.empty());
    b.putRaw(tb, Optional.empty());
    SyncReport report = sync(b, a);
    assertThat(report.converged()).isTrue();
    assertThat(raw(a, key)).isEqualTo(tb);
    assertThat(raw(b, key)).isEqualTo(tb);
  }

  @Test
  void case28AnOpaqueRecordBehindWithinTheCapFastForwards() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = committed(a.put(draft(key, Kind.CHECKPOINT, "c1", "alice"), Optional.empty()));
    b.putRaw(r, Optional.empty());
    Record ahead = r;
    for (int i = 0; i < Math.min(cap, 3); i++) {
      ahead = edit(a, ahead, "c" + (i + 2));
    }
    SyncReport report = sync(a, b);
    assertThat(report.fastForwarded()).isEqualTo(1);
    assertThat(raw(b, key).revision()).isEqualTo(ahead.revision());
  }

  @Test
  void case29AChainLongerThanTheCapNeverOverwritesSilently() throws Exception {
    Store a = open(2, clock);
    Store b = open(2, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record ahead = r;
    for (int i = 0; i < 3; i++) {
      ahead = edit(a, ahead, "v" + (i + 2));
    }
    SyncReport report = sync(a, b);
    assertThat(report.conflicts()).hasSize(1);
    assertThat(raw(b, key)).isEqualTo(r);
    assertThat(raw(a, key)).isEqualTo(ahead);
  }

  @Test
  void case30StoresWithCapsFourAndThirtyTwoConverge() throws Exception {
    Store a = open(4, clock);
    Store b = open(32, clock);
    create(a, key, "v1");
    create(b, sibling, "s1");
    assertThat(sync(a, b).copied()).isEqualTo(2);
    // B runs 6 edits ahead: more than A's cap, within B's own.
    Record onB = raw(b, key);
    for (int i = 0; i < 6; i++) {
      onB = edit(b, onB, "b" + i);
    }
    tombstoneOf(a, raw(a, sibling));
    SyncReport first = sync(a, b);
    assertThat(first.converged()).isTrue();
    assertThat(first.fastForwarded()).isEqualTo(2);
    assertThat(raw(a, key).revision()).isEqualTo(onB.revision());
    assertThat(raw(a, key).ancestors()).hasSize(4);
    assertThat(raw(b, key).ancestors()).hasSize(6);
    // Now A runs ahead: its short list still names B's revision, so B fast-forwards.
    Record onA = edit(a, raw(a, key), "a1");
    onA = edit(a, onA, "a2");
    SyncReport second = sync(b, a);
    assertThat(second.fastForwarded()).isEqualTo(1);
    assertThat(raw(b, key).revision()).isEqualTo(onA.revision());
    assertThat(raw(b, sibling).revision()).isEqualTo(raw(a, sibling).revision());
    assertThat(sync(a, b)).isEqualTo(new SyncReport(0, 0, 0, List.of(), List.of(), true));
  }

  @Test
  void case31ARecreationWinsOverTheOldDeleteEverywhere() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    Record t = tombstoneOf(a, r);
    b.putRaw(t, Optional.empty());
    Record r2 = create(a, key, "v2");
    SyncReport report = sync(b, a);
    assertThat(report.converged()).isTrue();
    assertThat(b.get(key).map(Record::revision)).contains(r2.revision());
    assertThat(a.get(key)).contains(r2);
  }

  @Test
  void case32AppendOnlyRecordsMergeToTheOrderedUnionOfLinesOnBothSides() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = committed(a.put(draft(key, Kind.LOG, "one\n", "alice"), Optional.empty()));
    b.putRaw(r, Optional.empty());
    edit(a, r, "one\ntwo\n");
    edit(b, r, "one\nthree\n");
    SyncReport report = sync(a, b);
    assertThat(report.merged()).isEqualTo(1);
    assertThat(report.converged()).isTrue();
    Record ma = raw(a, key);
    assertThat(ma).isEqualTo(raw(b, key).withAncestors(ma.ancestors()));
    assertThat(ma.revision()).isEqualTo(raw(b, key).revision());
    String text = ((Body.Inline) ma.body()).text();
    assertThat(text.lines()).containsExactlyInAnyOrder("one", "two", "three");
    assertThat(text).startsWith("one\n");
    assertThat(sync(a, b).converged()).isTrue();
  }

  @Test
  void case58ALineOneSideRemovedStaysRemovedWhenTheOtherAppendsOnBothSides() throws Exception {
    for (boolean forward : new boolean[] {true, false}) {
      Store a = open(cap, clock);
      Store b = open(cap, clock);
      Record r = committed(a.put(draft(key, Kind.LINES, "l1\nl2\nl3\n", "alice"), Optional.empty()));
      b.putRaw(r, Optional.empty());
      edit(a, r, "l1\nl3\n");
      edit(b, r, "l1\nl2\nl3\nl4\n");
      assertThat(raw(a, key).bases()).as("the store keeps the base").hasSize(1);
      SyncReport report = forward ? sync(a, b) : sync(b, a);
      assertThat(report.merged()).isEqualTo(1);
      assertThat(report.converged()).isTrue();
      assertThat(((Body.Inline) raw(a, key).body()).text()).isEqualTo("l1\nl3\nl4\n");
      assertThat(raw(b, key).revision()).isEqualTo(raw(a, key).revision());
      assertThat(((Body.Inline) raw(b, key).body()).text()).isEqualTo("l1\nl3\nl4\n");
      // the merged record keeps its bases too: the next divergence merges three-way again
      Record m = raw(a, key);
      edit(a, m, "l3\nl4\n");
      edit(b, raw(b, key), "l1\nl3\nl4\nl5\n");
      assertThat(sync(a, b).converged()).isTrue();
      assertThat(((Body.Inline) raw(b, key).body()).text()).isEqualTo("l3\nl4\nl5\n");
      assertThat(sync(a, b)).isEqualTo(new SyncReport(0, 0, 0, List.of(), List.of(), true));
    }
  }

  @Test
  void case59AppendOnlyRecordsWithoutTheirCommonAncestorsLinesAreAConflictNotAUnion() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Body base = Body.Inline.text("l1\nl2\nl3\n");
    Record r = new Record(key, Kind.LINES, new Revision(1, RevisionHash.of(FormatVersion.V2, Kind.LINES, base)), null,
        List.of(), base, Meta.EMPTY, null, null, List.of(), FormatVersion.V2);
    a.putRaw(r, Optional.empty());
    b.putRaw(r, Optional.empty());
    Record ea = v2Edit(a, r, "l1\nl3\n");
    Record eb = v2Edit(b, r, "l1\nl2\nl3\nl4\n");
    SyncReport report = sync(a, b);
    assertThat(report.conflicts()).singleElement().satisfies(c -> assertThat(c.reason())
        .contains("neither keeps the lines of their common ancestor"));
    assertThat(report.converged()).isFalse();
    assertThat(raw(a, key)).isEqualTo(ea);
    assertThat(raw(b, key)).isEqualTo(eb);
  }

  /** The next version of {@code base} as a format-2 build wrote it (no bases), raw put into {@code s}. */
  private Record v2Edit(Store s, Record base, String text) {
    Body body = Body.Inline.text(text);
    Record r = new Record(key, base.kind(), new Revision(base.revision().counter() + 1,
        RevisionHash.of(FormatVersion.V2, base.kind(), body)), base.revision(), List.of(base.revision()), body,
        Meta.EMPTY, null, null, List.of(), FormatVersion.V2);
    assertThat(s.putRaw(r, Optional.of(base.revision()))).isInstanceOf(Committed.class);
    return raw(s, key);
  }

  @Test
  void case61PurgeLogEntriesOfOneMillisecondListInAppendOrder() {
    List<RecordKey> appended = new ArrayList<>();
    for (int i = 11; i >= 0; i--) {
      RecordKey k = new RecordKey("ns", "order", String.format("k%02d", i));
      Record t = tombstoneOf(store, create(store, k, "v"));
      assertThat(store.purge(k, Optional.of(t.revision()))).isInstanceOf(Deleted.class);
      appended.add(k);
    }
    assertThat(store.ledger().purged(KeyPrefix.collection("ns", "order")))
        .extracting(dev.lethe.store.core.ledger.PurgeEntry::key).containsExactlyElementsOf(appended);
  }

  @Test
  void case62PurgeLogPagesOfEverySizeWalkToTheWholeLog() {
    for (int i = 0; i < 14; i++) {
      RecordKey k = new RecordKey("ns", i % 2 == 0 ? "pages" : "other", "k" + i);
      Record t = tombstoneOf(store, create(store, k, "v"));
      assertThat(store.purge(k, Optional.of(t.revision()))).isInstanceOf(Deleted.class);
    }
    dev.lethe.store.core.ledger.Ledger ledger = store.ledger();
    for (KeyPrefix prefix : List.of(KeyPrefix.all(), KeyPrefix.collection("ns", "pages"))) {
      for (int size : new int[] {1, 3, 5, dev.lethe.store.core.ledger.PurgeLogPage.MAX_SIZE}) {
        assertThat(dev.lethe.store.core.ledger.PurgeLogPage.walk(after -> ledger.purgedPage(prefix, after, size)))
            .as("%s in pages of %d", prefix, size).isEqualTo(ledger.purged(prefix));
      }
    }
    assertThat(ledger.purged(KeyPrefix.all())).hasSize(14);
    assertThat(ledger.purgedPage(KeyPrefix.all(), Optional.empty(), 5).entries()).hasSize(5);
    for (int size : new int[] {0, dev.lethe.store.core.ledger.PurgeLogPage.MAX_SIZE + 1}) {
      assertThatThrownBy(() -> ledger.purgedPage(KeyPrefix.all(), Optional.empty(), size))
          .isInstanceOf(IllegalArgumentException.class);
    }
    for (String forged : List.of("nope", "5-0000000000000000", "s-1", "99999-x")) {
      assertThatThrownBy(() -> ledger.purgedPage(KeyPrefix.all(), Optional.of(forged), 5)).as(forged)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void case60RecordsDifferingOnlyInLabelsOrAuthorNeverSyncAsConverged() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record ea = committed(a.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v2"),
        new Meta("alice", null, null, null, Map.of("l", "1"))), Optional.of(r.revision())));
    Record eb = committed(b.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v2"),
        new Meta("alice", null, null, null, Map.of("l", "2"))), Optional.of(r.revision())));
    assertThat(ea.revision()).isNotEqualTo(eb.revision());
    SyncReport report = sync(a, b);
    assertThat(report.conflicts()).hasSize(1);
    assertThat(report.converged()).isFalse();
    // format-2 records at one revision whose labels differ: compared, reported, neither written
    RecordKey old = new RecordKey("ns", "col", "old");
    Body body = Body.Inline.text("same");
    Revision shared = new Revision(1, RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, body));
    Record oa = new Record(old, Kind.DOCUMENT, shared, null, List.of(), body,
        new Meta("bob", null, 1L, 1L, Map.of("l", "1")), null, null, List.of(), FormatVersion.V2);
    a.putRaw(oa, Optional.empty());
    b.putRaw(oa.withMeta(new Meta("carol", null, 1L, 1L, Map.of("l", "1"))), Optional.empty());
    SyncReport second = sync(a, b);
    assertThat(second.conflicts()).extracting(SyncConflict::key).contains(old);
    assertThat(second.conflicts()).filteredOn(c -> c.key().equals(old)).singleElement()
        .satisfies(c -> assertThat(c.reason()).contains("author differ"));
    assertThat(raw(b, old).meta().author()).isEqualTo("carol");
  }

  @Test
  void case33ACollectedTombstoneMayReturnButTheLiveRecordNeverDoes() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record t = tombstoneOf(a, r);
    clock.advance(Duration.ofSeconds(1));
    sync(a, b);
    clock.advance(Duration.ofDays(8));
    // A collects (past the horizon for A); B still holds the tombstone.
    assertThat(Collect.run(a, KeyPrefix.all(), Duration.ofDays(7), clock, Progress.NONE).purged())
        .isEqualTo(1);
    sync(a, b);
    assertThat(a.get(key)).isEmpty();
    assertThat(raw(a, key).revision()).isEqualTo(t.revision());
  }

  @Test
  void collectBeforeTheHorizonKeepsTheTombstoneSoAStalePeerCannotResurrect() throws Exception {
    Store a = open(cap, clock);
    Store stale = open(cap, clock);
    Record r = create(a, key, "v1");
    stale.putRaw(r, Optional.empty());
    tombstoneOf(a, r);
    clock.advance(Duration.ofDays(2));
    CollectReport c = Collect.run(a, KeyPrefix.all(), Duration.ofDays(7), clock, Progress.NONE);
    assertThat(c.purged()).isZero();
    assertThat(c.tooYoung()).isEqualTo(1);
    sync(a, stale);
    assertThat(a.get(key)).isEmpty();
    assertThat(stale.get(key)).isEmpty();
  }

  // ---- reset and collect --------------------------------------------------------------------

  @Test
  void case34ResetOfOneCollectionTombstonesOnlyItAndASecondRunFindsNothing() {
    RecordKey c1a = new RecordKey("n", "c1", "a");
    RecordKey c1b = new RecordKey("n", "c1", "b");
    RecordKey c2 = new RecordKey("n", "c2", "a");
    RecordKey n2 = new RecordKey("n2", "c1", "a");
    for (RecordKey k : List.of(c1a, c1b, c2, n2)) {
      create(store, k, "v");
    }
    ResetReport first = Reset.run(store, KeyPrefix.collection("n", "c1"), Optional.of("ops"),
        Progress.NONE);
    assertThat(first).isEqualTo(new ResetReport(2, List.of()));
    assertThat(store.get(c1a)).isEmpty();
    assertThat(raw(store, c1b).meta().author()).isEqualTo("ops");
    assertThat(store.get(c2)).isPresent();
    assertThat(store.get(n2)).isPresent();
    assertThat(Reset.run(store, KeyPrefix.collection("n", "c1"), Optional.empty(), Progress.NONE))
        .isEqualTo(new ResetReport(0, List.of()));
    assertThat(Reset.run(store, KeyPrefix.namespace("n"), Optional.empty(), Progress.NONE))
        .isEqualTo(new ResetReport(1, List.of()));
    assertThat(store.get(n2)).isPresent();
  }

  @Test
  void resetWithoutANamespaceIsRejectedAndDeletesNothing() {
    create(store, key, "v");
    assertThatThrownBy(() -> Reset.run(store, KeyPrefix.all(), Optional.empty(), Progress.NONE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace");
    assertThat(store.get(key)).isPresent();
  }

  @Test
  void case35ARecordEditedDuringResetIsAConflictLeftLiveAndAReRunFinishes() {
    Record r = create(store, key, "v1");
    create(store, sibling, "s");
    Record[] edited = new Record[1];
    Store racing = new InterleavingStore(store, key, () -> edited[0] = edit(store, r, "v2"));
    ResetReport first = Reset.run(racing, KeyPrefix.namespace("ns"), Optional.empty(), Progress.NONE);
    assertThat(first).isEqualTo(new ResetReport(1, List.of(key)));
    assertThat(store.get(key)).contains(edited[0]);
    assertThat(Reset.run(store, KeyPrefix.namespace("ns"), Optional.empty(), Progress.NONE))
        .isEqualTo(new ResetReport(1, List.of()));
    assertThat(store.list(KeyPrefix.all())).isEmpty();
  }

  @Test
  void case36CollectPurgesOnlyTombstonesPastTheHorizonAndCountsUnstamped() {
    long now = clock.millis();
    RecordKey old = new RecordKey("ns", "col", "old");
    RecordKey young = new RecordKey("ns", "col", "young");
    RecordKey unstamped = new RecordKey("ns", "col", "unstamped");
    RecordKey future = new RecordKey("ns", "col", "future");
    RecordKey live = new RecordKey("ns", "col", "live");
    putTombstone(old, now - Duration.ofDays(10).toMillis());
    putTombstone(young, now - Duration.ofDays(1).toMillis());
    putTombstone(unstamped, null);
    putTombstone(future, now + Duration.ofDays(30).toMillis());
    create(store, live, "v");
    CollectReport report = Collect.run(store, KeyPrefix.all(), Duration.ofDays(7), clock, Progress.NONE);
    assertThat(report).isEqualTo(new CollectReport(1, 1, 1, List.of(), Map.of(),
        Map.of(new RecordKey("ns", "col", "future"), "deleted 2592000 s in the future of this store's clock"), false));
    assertThat(store.getRaw(old)).isEmpty();
    assertThat(store.getRaw(young)).isPresent();
    assertThat(store.getRaw(unstamped)).isPresent();
    assertThat(store.getRaw(future)).isPresent();
    assertThat(store.get(live)).isPresent();
  }

  @Test
  void collectPurgesATombstoneExactlyAtTheHorizon() {
    putTombstone(key, clock.millis() - Duration.ofHours(2).toMillis());
    assertThat(Collect.run(store, KeyPrefix.all(), Duration.ofHours(2), clock, Progress.NONE).purged())
        .isEqualTo(1);
  }

  private void putTombstone(RecordKey k, Long deletedAt) {
    Record t = new Record(k, Kind.TOMBSTONE, new Revision(2, Tombstones.HASH), rev(1, "x"),
        List.of(rev(1, "x")), Body.EMPTY, Meta.EMPTY, deletedAt, null, List.of());
    committed(store.putRaw(t, Optional.empty()));
  }

  @Test
  void case37AKeyRecreatedBetweenCollectsReadAndItsPurgeIsAConflictAndSurvives() {
    Record t = tombstoneOf(store, create(store, key, "v1"));
    clock.advance(Duration.ofDays(30));
    Record[] recreated = new Record[1];
    Store racing = new InterleavingStore(store, key, () -> recreated[0] = create(store, key, "v2"));
    CollectReport report = Collect.run(racing, KeyPrefix.all(), Duration.ofDays(7), clock, Progress.NONE);
    assertThat(report.conflicts()).containsExactly(key);
    assertThat(report.purged()).isZero();
    assertThat(store.get(key)).contains(recreated[0]);
    assertThat(recreated[0].parent()).isEqualTo(t.revision());
  }

  // ---- listings and pages (docs/design/0101-paged-listings.md) ------------------------------

  /** Walks every page of a listing with {@code limit} and returns the keys in the order seen. */
  private static List<RecordKey> walk(Store s, KeyPrefix prefix, boolean raw, int limit) {
    List<RecordKey> seen = new ArrayList<>();
    Optional<RecordKey> after = Optional.empty();
    do {
      Page p = raw ? s.listRawPage(prefix, after, limit) : s.listPage(prefix, after, limit);
      assertThat(p.records()).hasSizeLessThanOrEqualTo(limit);
      p.records().forEach(r -> seen.add(r.key()));
      after = p.next();
    } while (after.isPresent());
    return seen;
  }

  @Test
  void listingsAreInByteOrderOfTheKeyParts() {
    // '-' < '.' < digits < upper case < '_' < lower case: byte order, whatever a database collation says
    List<String> ids = List.of("a", "_", "Z", "9", ".x", "-x", "A", "z", "a-", "a.", "a_", "aA");
    for (String id : ids) {
      create(store, new RecordKey("ns", "col", id), id);
    }
    create(store, new RecordKey("NS", "col", "x"), "x");
    create(store, new RecordKey("ns", "Col", "x"), "x");
    create(store, new RecordKey("ns-", "col", "x"), "x");
    List<RecordKey> expected = new ArrayList<>(store.listRaw(KeyPrefix.all()).stream().map(Record::key).toList());
    List<RecordKey> sorted = new ArrayList<>(expected);
    java.util.Collections.sort(sorted);
    assertThat(expected).isEqualTo(sorted).hasSize(ids.size() + 3);
    assertThat(expected.get(0)).isEqualTo(new RecordKey("NS", "col", "x"));
    assertThat(store.list(KeyPrefix.collection("ns", "col"))).extracting(r -> r.key().id())
        .containsExactly("-x", ".x", "9", "A", "Z", "_", "a", "a-", "a.", "aA", "a_", "z");
    assertThat(walk(store, KeyPrefix.all(), true, 2)).isEqualTo(expected);
  }

  @Test
  void pagesWalkEveryKeyOnceInKeyOrderAndTheLivePagesSkipTombstones() {
    List<RecordKey> all = new ArrayList<>();
    for (String ns : List.of("a", "b")) {
      for (String col : List.of("c1", "c2")) {
        for (int i = 0; i < 4; i++) {
          RecordKey k = new RecordKey(ns, col, "r" + i);
          all.add(k);
          Record r = create(store, k, k.toString());
          if (i % 2 == 1) {
            tombstoneOf(store, r);
          }
        }
      }
    }
    List<RecordKey> live = all.stream().filter(k -> !k.id().equals("r1") && !k.id().equals("r3")).toList();
    for (int limit : List.of(1, 2, 3, 16, 17, Page.MAX_LIMIT)) {
      assertThat(walk(store, KeyPrefix.all(), true, limit)).as("raw, limit %d", limit).isEqualTo(all);
      assertThat(walk(store, KeyPrefix.all(), false, limit)).as("live, limit %d", limit).isEqualTo(live);
    }
    assertThat(walk(store, KeyPrefix.namespace("b"), true, 3)).isEqualTo(all.subList(8, 16));
    assertThat(walk(store, KeyPrefix.collection("a", "c2"), false, 1))
        .containsExactly(new RecordKey("a", "c2", "r0"), new RecordKey("a", "c2", "r2"));
    Page first = store.listRawPage(KeyPrefix.all(), Optional.empty(), 16);
    assertThat(first.records()).hasSize(16);
    assertThat(first.next()).isEmpty();
    Page partial = store.listRawPage(KeyPrefix.all(), Optional.empty(), 15);
    assertThat(partial.next()).contains(all.get(14));
    // any key may be the cursor, even one of another namespace or one never stored
    assertThat(store.listRawPage(KeyPrefix.namespace("b"), Optional.of(new RecordKey("a", "zz", "zz")), 2)
        .records()).extracting(Record::key).containsExactly(all.get(8), all.get(9));
    assertThat(store.listRawPage(KeyPrefix.namespace("a"), Optional.of(new RecordKey("a", "c1", "r10")), 2)
        .records()).extracting(Record::key).containsExactly(all.get(2), all.get(3));
    assertThat(store.listRawPage(KeyPrefix.namespace("a"), Optional.of(new RecordKey("b", "c1", "r0")), 5)
        .records()).isEmpty();
  }

  @Test
  void aPageWalkReturnsEveryKeyThatExistsThroughoutExactlyOnceWhileOthersComeAndGo() {
    List<RecordKey> stable = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      RecordKey k = new RecordKey("ns", "col", "k" + (i * 10 + 10));
      stable.add(k);
      create(store, k, "v");
    }
    List<RecordKey> seen = new ArrayList<>();
    Optional<RecordKey> after = Optional.empty();
    int round = 0;
    do {
      Page p = store.listRawPage(KeyPrefix.all(), after, 3);
      p.records().forEach(r -> seen.add(r.key()));
      after = p.next();
      round++;
      // between pages: keys appear before and after the cursor, and transient ones vanish
      create(store, new RecordKey("ns", "col", "k" + (round * 10 + 5)), "new");
      create(store, new RecordKey("ns", "col", "k0" + round), "before");
      RecordKey transientKey = new RecordKey("ns", "col", "k" + (round * 10 + 15));
      Record t = tombstoneOf(store, create(store, transientKey, "short-lived"));
      store.purge(transientKey, Optional.of(t.revision()));
    } while (after.isPresent());
    assertThat(seen).doesNotHaveDuplicates().containsAll(stable);
    assertThat(seen).isSorted();
  }

  @Test
  void aPageIsCutAtTheByteBudgetAndTheWalkStillReturnsEveryKeyOnce() {
    // docs/design/0110-pages-cut-by-bytes.md: ~1-3 MiB records, 20 MiB in all, so a page of 1000
    // records must be cut by bytes; every third record is a tombstone, so the live walk differs.
    Random random = new Random(110);
    List<RecordKey> all = new ArrayList<>();
    List<RecordKey> live = new ArrayList<>();
    long maxRecord = 0;
    for (int i = 0; i < 10; i++) {
      RecordKey k = new RecordKey("big", "col", "r" + i);
      int size = (1 << 20) + random.nextInt(2 << 20);
      Record r = create(store, k, "x".repeat(size));
      maxRecord = Math.max(maxRecord, Page.sizeOf(r));
      all.add(k);
      if (i % 3 == 2) {
        tombstoneOf(store, r);
      } else {
        live.add(k);
      }
    }
    for (boolean raw : List.of(true, false)) {
      List<RecordKey> seen = new ArrayList<>();
      Optional<RecordKey> after = Optional.empty();
      int pages = 0;
      do {
        Page p = raw
            ? store.listRawPage(KeyPrefix.namespace("big"), after, Page.MAX_LIMIT)
            : store.listPage(KeyPrefix.namespace("big"), after, Page.MAX_LIMIT);
        long bytes = p.records().stream().mapToLong(Page::sizeOf).sum();
        assertThat(bytes).as("raw %s, page %d", raw, pages).isLessThanOrEqualTo(Page.MAX_BYTES + maxRecord);
        p.next().ifPresent(n -> assertThat(p.records()).isNotEmpty().last().extracting(Record::key).isEqualTo(n));
        p.records().forEach(r -> seen.add(r.key()));
        after = p.next();
        pages++;
      } while (after.isPresent());
      assertThat(seen).as("raw %s", raw).isEqualTo(raw ? all : live);
      assertThat(pages).as("raw %s: pages", raw).isGreaterThan(1);
    }
  }

  @Test
  void aPageSizeOutsideOneToTheMaximumIsRejected() {
    create(store, key, "v");
    for (int limit : List.of(0, -1, Page.MAX_LIMIT + 1)) {
      assertThatThrownBy(() -> store.listPage(KeyPrefix.all(), Optional.empty(), limit))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("page size");
      assertThatThrownBy(() -> store.listRawPage(KeyPrefix.all(), Optional.empty(), limit))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("page size");
    }
  }

  // ---- blobs --------------------------------------------------------------------------------

  @Test
  void blobPutIsContentAddressedAndIdempotent() {
    byte[] content = "hello blob".getBytes(StandardCharsets.UTF_8);
    BlobRef a = store.blobs().put(content);
    BlobRef b = store.blobs().put(content);
    assertThat(a).isEqualTo(b);
    assertThat(a.hash()).isEqualTo(ContentHash.of(content));
    assertThat(store.blobs().get(a.hash())).hasValueSatisfying(v -> assertThat(v).isEqualTo(content));
    assertThat(store.blobs().list()).hasSize(1);
  }

  @Test
  void gcSweepsOnlyUnreferencedBlobsOlderThanTheGraceAndATombstonePinsItsBlob() {
    BlobRef used = store.blobs().put("used".getBytes(StandardCharsets.UTF_8));
    BlobRef pinned = store.blobs().put("pinned".getBytes(StandardCharsets.UTF_8));
    BlobRef orphan = store.blobs().put("orphan".getBytes(StandardCharsets.UTF_8));
    committed(store.put(Record.draft(key, Kind.DOCUMENT, used.body(), Meta.EMPTY), Optional.empty()));
    Record p = committed(store.put(
        Record.draft(sibling, Kind.DOCUMENT, pinned.body(), Meta.EMPTY), Optional.empty()));
    Record t = tombstoneOf(store, p);
    BlobGc gc = new BlobGc(clock);
    clock.advance(Duration.ofMinutes(30));
    assertThat(gc.run(store, Duration.ofHours(1))).isEqualTo(new GcReport(0, 2, 1));
    clock.advance(Duration.ofMinutes(31));
    BlobRef fresh = store.blobs().put("fresh".getBytes(StandardCharsets.UTF_8));
    assertThat(gc.run(store, Duration.ofHours(1))).isEqualTo(new GcReport(1, 2, 1));
    assertThat(store.blobs().get(orphan.hash())).isEmpty();
    assertThat(store.blobs().get(pinned.hash())).isPresent();
    assertThat(store.blobs().get(fresh.hash())).isPresent();
    store.purge(sibling, Optional.of(t.revision()));
    assertThat(gc.run(store, Duration.ofHours(1)).swept()).isEqualTo(1);
    assertThat(store.blobs().get(pinned.hash())).isEmpty();
    assertThat(store.blobs().get(used.hash())).isPresent();
  }

  @Test
  void gcKeepsAnOldBlobThatAWriterReusedWhileGcWasReadingTheRecords() {
    byte[] content = "shared".getBytes(StandardCharsets.UTF_8);
    BlobRef old = store.blobs().put(content);
    clock.advance(Duration.ofHours(2));
    // While gc reads the records, a writer stores the same content again (refreshing the old,
    // unreferenced blob) and commits a record that refers to it.
    Store racing = InterleavingStore.afterListing(store, () ->
        committed(store.put(Record.draft(key, Kind.DOCUMENT, store.blobs().put(content).body(),
            Meta.EMPTY), Optional.empty())));
    GcReport report = new BlobGc(clock).run(racing, Duration.ofHours(1));
    assertThat(report.swept()).isZero();
    assertThat(store.get(key)).isPresent();
    assertThat(store.blobs().get(old.hash())).isPresent();
  }

  // ---- a reused blob is refreshed (docs/design/0120-a-reused-blob-is-refreshed.md) -----------

  /** The ways a record write can start to use a blob the store holds, each one write of {@code r}. */
  private static Map<String, java.util.function.BiFunction<Store, Record, PutResult>> blobWrites() {
    Map<String, java.util.function.BiFunction<Store, Record, PutResult>> writes = new LinkedHashMap<>();
    writes.put("put", (s, r) -> s.put(Record.draft(r.key(), r.kind(), r.body(), Meta.EMPTY), Optional.empty()));
    writes.put("putRaw", (s, r) -> s.putRaw(r, Optional.empty()));
    writes.put("putRawBatch", (s, r) -> s.putRawBatch(List.of(new RawPut(r, Optional.empty()))).get(0));
    return writes;
  }

  /** A record at counter 1 whose body is {@code blob}, as a peer would have written it. */
  private static Record foreignBlobRecord(RecordKey k, BlobRef blob) {
    Body body = blob.body();
    Meta meta = new Meta("bob", "peer", 1000L, 2000L, Map.of());
    return new Record(k, Kind.DOCUMENT, RevisionHash.revision(1, Kind.DOCUMENT, body, meta, List.of()), null,
        List.of(), body, meta, null, null, List.of());
  }

  @Test
  void gcKeepsAnOldBlobThatAWriteNamingItByHashStartedToUseWhileGcWasReadingTheRecords() {
    for (Map.Entry<String, java.util.function.BiFunction<Store, Record, PutResult>> write : blobWrites().entrySet()) {
      RecordKey k = new RecordKey("ns", "reuse", write.getKey());
      BlobRef old = store.blobs().put(("old content for " + write.getKey()).getBytes(StandardCharsets.UTF_8));
      clock.advance(Duration.ofHours(2));
      // gc has listed the blobs and the records (none refers to the old blob); a writer now commits a
      // record naming it by hash, without storing the content again
      Store racing = InterleavingStore.afterListing(store, () ->
          committed(write.getValue().apply(store, foreignBlobRecord(k, old))));
      GcReport report = new BlobGc(clock).run(racing, Duration.ofHours(1));
      assertThat(report.swept()).as(write.getKey()).isZero();
      assertThat(store.get(k)).as(write.getKey()).isPresent();
      assertThat(store.blobs().get(old.hash())).as("%s: the blob of a live record", write.getKey()).isPresent();
    }
  }

  @Test
  void gcKeepsAnOldBlobThatASyncPushedARecordOfWhileGcWasReadingTheRecords() throws Exception {
    byte[] content = "shared by peers".getBytes(StandardCharsets.UTF_8);
    Store peer = open(cap, clock);
    BlobRef old = store.blobs().put(content); // the store has the content, unreferenced, for hours
    clock.advance(Duration.ofHours(2));
    Record r = committed(peer.put(Record.draft(key, Kind.DOCUMENT, peer.blobs().put(content).body(),
        Meta.EMPTY), Optional.empty()));
    // sync finds the blob already stored, so it copies only the record
    Store racing = InterleavingStore.afterListing(store, () -> assertThat(sync(peer, store).copied()).isEqualTo(1));
    assertThat(new BlobGc(clock).run(racing, Duration.ofHours(1)).swept()).isZero();
    assertThat(store.get(key)).contains(r);
    assertThat(store.blobs().get(old.hash())).isPresent();
  }

  @Test
  void aGcThatRunsLongerThanTheGraceStillKeepsABlobReusedDuringIt() {
    BlobRef old = store.blobs().put("old".getBytes(StandardCharsets.UTF_8));
    clock.advance(Duration.ofHours(2));
    // the reuse happens while gc reads the records, and the reading then takes longer than the grace
    Store racing = InterleavingStore.afterListing(store, () -> {
      committed(store.put(Record.draft(key, Kind.DOCUMENT, old.body(), Meta.EMPTY), Optional.empty()));
      clock.advance(Duration.ofMinutes(90));
    });
    assertThat(new BlobGc(clock).run(racing, Duration.ofHours(1)).swept()).isZero();
    assertThat(store.blobs().get(old.hash())).isPresent();
  }

  @Test
  void aWriteNamingABlobTheStoreDoesNotHoldIsRefusedAndWritesNothing() {
    BlobRef missing = new BlobRef(ContentHash.ofUtf8("never stored"), 12);
    Record live = create(store, sibling, "v1");
    for (Map.Entry<String, java.util.function.BiFunction<Store, Record, PutResult>> write : blobWrites().entrySet()) {
      RecordKey k = new RecordKey("ns", "missing", write.getKey());
      assertThatThrownBy(() -> write.getValue().apply(store, foreignBlobRecord(k, missing))).as(write.getKey())
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(missing.hash());
      assertThat(store.getRaw(k)).as(write.getKey()).isEmpty();
    }
    // a batch with one such item writes none of its items
    Record good = foreign(new RecordKey("ns", "missing", "good"), 1, "good", List.of());
    assertThatThrownBy(() -> store.putRawBatch(List.of(new RawPut(good, Optional.empty()),
        new RawPut(foreignBlobRecord(key, missing), Optional.empty()))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(missing.hash());
    assertThat(store.listRaw(KeyPrefix.all())).containsExactly(live);
  }

  @Test
  void touchRefreshesAStoredBlobAndReportsAnAbsentOne() {
    BlobRef b = store.blobs().put("touched".getBytes(StandardCharsets.UTF_8));
    long stored = store.blobs().list().get(0).storedAt();
    clock.advance(Duration.ofHours(2));
    assertThat(store.blobs().touch(b.hash())).isTrue();
    assertThat(store.blobs().list().get(0).storedAt()).isGreaterThanOrEqualTo(stored + Duration.ofHours(2).toMillis());
    assertThat(store.blobs().remove(b.hash(), clock.millis() - Duration.ofHours(1).toMillis())).isFalse();
    assertThat(store.blobs().touch(ContentHash.ofUtf8("absent"))).isFalse();
    assertThat(store.blobs().contains(ContentHash.ofUtf8("absent"))).isFalse();
  }

  /**
   * The reuse oracle: writers reuse a few old blobs by hash (consumer puts, raw puts, batches), delete
   * and purge records, and store the content again when a write is refused because gc swept it, while
   * gc runs again and again and the clock moves on; after each round every record's blob is readable.
   * The clock never moves while a write is under way (the grace covers a write; docs/design/0120).
   * Seeded, though threads interleave freely: replay the choices with {@code -Dlethe.store.blobgc.seed=N}.
   */
  @Test
  void randomWritersReusingOldBlobsWhileGcRunsNeverLeaveARecordWithoutItsBlob() throws Exception {
    assumeTrue(serverAnswersConcurrentGc(), "the test server stops answering under concurrent writers and gc");
    long seed = Long.getLong("lethe.store.blobgc.seed", new Random().nextLong());
    System.out.println(getClass().getName() + " blob gc seed " + seed + " (replay: -Dlethe.store.blobgc.seed="
        + seed + ")");
    Duration grace = Duration.ofHours(1);
    List<byte[]> contents = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      contents.add(("reused blob " + i).getBytes(StandardCharsets.UTF_8));
      store.blobs().put(contents.get(i));
    }
    List<RecordKey> keys = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      keys.add(new RecordKey("ns", "gc", "k" + i));
    }
    java.util.concurrent.locks.ReentrantReadWriteLock clockGate = new java.util.concurrent.locks.ReentrantReadWriteLock();
    java.util.concurrent.atomic.AtomicInteger swept = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger reused = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
    Random gcRandom = new Random(seed);
    int writers = 3;
    for (int round = 0; round < 4; round++) {
      clock.advance(Duration.ofHours(2)); // every blob is old again
      java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers + 1);
      try {
        java.util.concurrent.Future<?> gcs = pool.submit(() -> {
          BlobGc gc = new BlobGc(clock);
          while (writing.get()) {
            swept.addAndGet(gc.run(store, grace).swept());
            clockGate.writeLock().lock();
            try {
              clock.advance(Duration.ofMinutes(gcRandom.nextInt(40)));
            } finally {
              clockGate.writeLock().unlock();
            }
          }
        });
        List<java.util.concurrent.Future<?>> ws = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          Random rnd = new Random(seed * 31 + round * 7 + w);
          ws.add(pool.submit(() -> {
            for (int op = 0; op < 40; op++) {
              RecordKey k = keys.get(rnd.nextInt(keys.size()));
              byte[] content = contents.get(rnd.nextInt(contents.size()));
              BlobRef blob = new BlobRef(ContentHash.of(content), content.length);
              int kind = rnd.nextInt(10);
              clockGate.readLock().lock();
              try {
                Optional<Record> cur = store.getRaw(k);
                if (kind < 6) {
                  PutResult r = reuse(store, k, blob, cur, kind % 3);
                  if (r instanceof Committed) {
                    reused.incrementAndGet();
                  }
                } else if (kind < 8) {
                  store.delete(k, Optional.empty());
                } else if (cur.isPresent() && cur.get().isTombstone()) {
                  store.purge(k, Optional.of(cur.get().revision()));
                }
              } catch (IllegalArgumentException e) {
                // gc swept the unreferenced blob before this write touched it: nothing was written
                assertThat(e).hasMessageContaining(blob.hash());
                refused.incrementAndGet();
                store.blobs().put(content);
              } finally {
                clockGate.readLock().unlock();
              }
            }
            return null;
          }));
        }
        for (java.util.concurrent.Future<?> f : ws) {
          f.get();
        }
        writing.set(false);
        gcs.get();
      } finally {
        pool.shutdownNow();
      }
      for (Record r : store.listRaw(KeyPrefix.all())) {
        for (String hash : r.referencedBlobs()) {
          assertThat(store.blobs().get(hash)).as("seed %d round %d: blob %s of %s", seed, round, hash, r)
              .isPresent();
        }
      }
    }
    assertThat(reused.get()).as("seed %d: writes reused blobs", seed).isPositive();
    assertThat(swept.get()).as("seed %d: gc swept blobs", seed).isPositive();
    System.out.println(getClass().getName() + " blob gc: " + reused + " reuses, " + swept + " swept, " + refused
        + " refused");
  }

  /** One write of a record at {@code k} whose body is {@code blob}: a put, a raw put or a one-item batch. */
  private static PutResult reuse(Store s, RecordKey k, BlobRef blob, Optional<Record> cur, int how) {
    Body body = blob.body();
    if (how == 0) {
      return s.put(Record.draft(k, Kind.DOCUMENT, body, Meta.byAuthor("alice")),
          cur.filter(c -> !c.isTombstone()).map(Record::revision));
    }
    long counter = cur.map(c -> c.revision().counter() + 1).orElse(1L);
    List<Revision> ancestors = cur.map(c -> List.of(c.revision())).orElse(List.of());
    Record r = new Record(k, Kind.DOCUMENT,
        RevisionHash.revision(counter, Kind.DOCUMENT, body, Meta.byAuthor("bob"), List.of()),
        ancestors.isEmpty() ? null : ancestors.get(0), ancestors, body, Meta.byAuthor("bob"), null, null, List.of());
    Optional<Revision> expected = cur.map(Record::revision);
    return how == 1 ? s.putRaw(r, expected) : s.putRawBatch(List.of(new RawPut(r, expected))).get(0);
  }

  // ---- integrity (docs/design/0108-records-that-prove-their-content.md) ----------------------

  private static final RecordJson JSON = new RecordJson();

  /** The record of {@code json} with another body, its revision kept. */
  private static String withBody(String json, Body body) {
    Record r = JSON.parse(json);
    return JSON.format(new Record(r.key(), r.kind(), r.revision(), r.parent(), r.ancestors(), body, r.meta(),
        r.deletedAt(), r.deletedBlob(), r.links(), r.format()));
  }

  /** The record of {@code json} with another revision hash. */
  private static String withHash(String json, String hash) {
    Record r = JSON.parse(json);
    return JSON.format(r.withLineage(new Revision(r.revision().counter(), hash), r.parent(), r.ancestors()));
  }

  /** The record of {@code json} with another kind. */
  private static String withKind(String json, Kind kind) {
    Record r = JSON.parse(json);
    return JSON.format(new Record(r.key(), kind, r.revision(), r.parent(), r.ancestors(), r.body(), r.meta(),
        r.deletedAt(), r.deletedBlob(), r.links(), r.format()));
  }

  /** {@code hash} with its hex digit at {@code i} changed. */
  private static String flipHex(String hash, int i) {
    char c = hash.charAt(i);
    char d = c == '0' ? '1' : '0';
    return hash.substring(0, i) + d + hash.substring(i + 1);
  }

  /** Asserts that every read and write of {@code k} on {@code s} refuses its corrupt record. */
  private void assertCorruptEverywhere(Store s, RecordKey k, Revision stored) {
    List<org.assertj.core.api.ThrowableAssert.ThrowingCallable> calls = List.of(
        () -> s.getRaw(k), () -> s.get(k), () -> s.listRaw(KeyPrefix.collection(k.namespace(), k.collection())),
        () -> s.listRawPage(KeyPrefix.collection(k.namespace(), k.collection()), Optional.of(before(k)), 5),
        () -> s.delete(k, Optional.of(stored)), () -> s.purge(k, Optional.of(stored)),
        () -> s.putRaw(foreign(k, stored.counter() + 1, "over", List.of(stored)), Optional.of(stored)),
        () -> s.put(draft(k, "over"), Optional.of(stored)));
    for (var call : calls) {
      assertThatThrownBy(call).isInstanceOfSatisfying(CorruptRecordException.class,
          e -> assertThat(e.key()).contains(k)).hasMessageContaining(k.toString());
    }
  }

  /** A key before every id of {@code k}'s collection the integrity cases use. */
  private static RecordKey before(RecordKey k) {
    return new RecordKey(k.namespace(), k.collection(), "-");
  }

  @Test
  void case38ABodyChangedBehindTheStoreIsACorruptRecordOnEveryReadAndWriteAndOtherKeysAreServed()
      throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    Record r = create(store, key, "v1");
    Record s = create(store, sibling, "s");
    tamper(store, key, json -> withBody(json, Body.Inline.text("V1")));
    assertCorruptEverywhere(store, key, r.revision());
    assertThatThrownBy(() -> store.list(KeyPrefix.all())).isInstanceOf(CorruptRecordException.class);
    assertThat(store.get(sibling)).contains(s);
    assertThat(store.getRaw(sibling)).contains(s);
  }

  @Test
  void case39ARevisionHashChangedBehindTheStoreIsACorruptRecord() throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    Record r = create(store, key, "v1");
    String flipped = flipHex(r.revision().hash(), 17);
    tamper(store, key, json -> withHash(json, flipped));
    assertCorruptEverywhere(store, key, new Revision(r.revision().counter(), flipped));
  }

  @Test
  void case40ALiveRecordMadeATombstoneATombstoneWithABodyAndAChangedKindAreCorrupt() throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    RecordKey madeTombstone = new RecordKey("ns", "c1", "rec");
    RecordKey kindChanged = new RecordKey("ns", "c2", "rec");
    RecordKey gone = new RecordKey("ns", "c3", "rec");
    Record r = create(store, madeTombstone, "v1");
    tamper(store, madeTombstone, json -> withKind(json, Kind.TOMBSTONE));
    assertCorruptEverywhere(store, madeTombstone, r.revision());
    Record s = create(store, kindChanged, "s");
    tamper(store, kindChanged, json -> withKind(json, Kind.CHECKPOINT));
    assertCorruptEverywhere(store, kindChanged, s.revision());
    Record t = tombstoneOf(store, create(store, gone, "g"));
    tamper(store, gone, json -> withBody(json, Body.Inline.text("resurrected")));
    assertCorruptEverywhere(store, gone, t.revision());
  }

  @Test
  void case41APageStopsBeforeACorruptRecordAndTheNextPageNamesIt() throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    RecordKey a = new RecordKey("ns", "col", "a");
    RecordKey c = new RecordKey("ns", "col", "z");
    Record ra = create(store, a, "a");
    create(store, key, "b");
    Record rc = create(store, c, "c");
    tamper(store, key, json -> withBody(json, Body.Inline.text("B")));
    for (boolean raw : new boolean[] {true, false}) {
      Page first = raw ? store.listRawPage(KeyPrefix.all(), Optional.empty(), 10)
          : store.listPage(KeyPrefix.all(), Optional.empty(), 10);
      assertThat(first.records()).containsExactly(ra);
      assertThat(first.next()).contains(a);
      assertThatThrownBy(() -> store.listRawPage(KeyPrefix.all(), Optional.of(a), 10))
          .isInstanceOfSatisfying(CorruptRecordException.class, e -> assertThat(e.key()).contains(key));
      Page rest = raw ? store.listRawPage(KeyPrefix.all(), Optional.of(key), 10)
          : store.listPage(KeyPrefix.all(), Optional.of(key), 10);
      assertThat(rest.records()).containsExactly(rc);
    }
  }

  @Test
  void case42SyncNeverCopiesACorruptRecordNamesItAndSyncsEveryOtherKey() throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    for (boolean forward : new boolean[] {true, false}) {
      Store a = open(cap, clock);
      Store b = open(cap, clock);
      RecordKey first = new RecordKey("ns", "col", "a");
      RecordKey last = new RecordKey("ns", "col", "z");
      Record r = create(a, key, "v1");
      assertThat(sync(a, b).converged()).isTrue();
      create(a, first, "first");
      create(a, last, "last");
      edit(a, r, "v2");
      tamper(a, key, json -> withBody(json, Body.Inline.text("v2 edited by hand")));
      SyncReport report = forward ? sync(a, b) : sync(b, a);
      assertThat(report.corrupt()).extracting(SyncCorrupt::key).containsExactly(key);
      assertThat(report.corrupt().get(0).message()).contains(key.toString()).contains("does not match");
      assertThat(report.converged()).isFalse();
      assertThat(report.copied()).isEqualTo(2);
      assertThat(raw(b, key)).isEqualTo(r);
      assertThat(raw(b, first)).isEqualTo(raw(a, first));
      assertThat(raw(b, last)).isEqualTo(raw(a, last));
      // the peer holding the corrupt copy is not overwritten either: its store refuses
      Record onB = edit(b, r, "v3 on B");
      SyncReport again = forward ? sync(b, a) : sync(a, b);
      assertThat(again.corrupt()).extracting(SyncCorrupt::key).containsExactly(key);
      assertThat(raw(b, key)).isEqualTo(onB);
      assertThatThrownBy(() -> a.getRaw(key)).isInstanceOf(CorruptRecordException.class);
    }
  }

  @Test
  void case43PutRawOfARecordWhoseRevisionDoesNotProveItsContentIsRefusedAndWritesNothing() {
    Record good = foreign(key, 3, "x", List.of());
    Body other = Body.Inline.text("y");
    Record bad = new Record(key, Kind.DOCUMENT, good.revision(), null, List.of(), other, good.meta(), null, null,
        List.of());
    assertThatThrownBy(() -> store.putRaw(bad, Optional.empty())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key.toString()).hasMessageContaining("does not match");
    Record badTombstone = new Record(key, Kind.TOMBSTONE, new Revision(4, Tombstones.HASH), good.revision(),
        List.of(good.revision()), Body.Inline.text("not empty"), Meta.EMPTY, 1L, null, List.of());
    assertThatThrownBy(() -> store.putRaw(badTombstone, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.getRaw(key)).isEmpty();
  }

  @Test
  void case44ALiveRecordWhoseBodyIsTheTombstoneDomainStringConflictsWithADeleteNeverConverges()
      throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record t = tombstoneOf(a, r);
    Record e = edit(b, r, Tombstones.DOMAIN);
    assertThat(e.revision().counter()).isEqualTo(t.revision().counter());
    assertThat(e.revision()).isNotEqualTo(t.revision());
    for (SyncReport report : List.of(sync(a, b), sync(b, a))) {
      assertThat(report.conflicts()).hasSize(1);
      assertThat(report.converged()).isFalse();
    }
    assertThat(raw(a, key)).isEqualTo(t);
    assertThat(raw(b, key)).isEqualTo(e);
  }

  @Test
  void case45AFormatOneRecordWithATombstoneRevisionAgainstATombstoneIsAConflictNotConverged()
      throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    b.putRaw(r, Optional.empty());
    Record t = tombstoneOf(a, r);
    // what a format-1 build wrote for that edit: the SHA-256 of the body alone, a tombstone's hash
    Body domain = Body.Inline.text(Tombstones.DOMAIN);
    Record v1 = new Record(key, Kind.DOCUMENT, new Revision(t.revision().counter(), ContentHash.of(
        Tombstones.DOMAIN.getBytes(StandardCharsets.UTF_8))), r.revision(), List.of(r.revision()), domain,
        Meta.byAuthor("alice"), null, null, List.of(), FormatVersion.V1);
    assertThat(b.putRaw(v1, Optional.of(r.revision()))).isInstanceOf(Committed.class);
    assertThat(raw(b, key)).isEqualTo(v1);
    assertThat(raw(b, key).revision()).isEqualTo(t.revision());
    SyncReport report = sync(a, b);
    assertThat(report.conflicts()).singleElement()
        .satisfies(c -> assertThat(c.reason()).contains("same revision"));
    assertThat(report.converged()).isFalse();
    assertThat(raw(a, key)).isEqualTo(t);
    assertThat(raw(b, key)).isEqualTo(v1);
  }

  @Test
  void case46AFormatOneRecordIsReadCheckedByItsOwnRuleCopiedVerbatimAndEditedIntoFormatTwo()
      throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Body body = Body.Inline.text("old\n");
    Record v1 = new Record(key, Kind.DOCUMENT, new Revision(1, ContentHash.ofUtf8("old\n")), null, List.of(), body,
        new Meta("alice", null, 1000L, 1000L, null), null, null, List.of(), FormatVersion.V1);
    assertThat(a.putRaw(v1, Optional.empty())).isInstanceOf(Committed.class);
    assertThat(a.get(key)).contains(v1);
    assertThat(sync(a, b).copied()).isEqualTo(1);
    assertThat(raw(b, key)).isEqualTo(v1);
    assertThat(raw(b, key).format()).isEqualTo(FormatVersion.V1);
    Record next = edit(b, raw(b, key), "new\n");
    assertThat(next.format()).isEqualTo(FormatVersion.CURRENT);
    assertThat(next.revision()).isEqualTo(RevisionHash.revision(2, Kind.DOCUMENT, Body.Inline.text("new\n"), Meta.byAuthor("alice"), List.of()));
    assertThat(sync(a, b).fastForwarded()).isEqualTo(1);
    assertThat(raw(a, key)).isEqualTo(next);
    // a format-1 record checked by the format-2 rule would be refused: the rule follows the version
    Record mislabelled = new Record(key, Kind.DOCUMENT, v1.revision(), null, List.of(), body, v1.meta(), null,
        null, List.of(), FormatVersion.V2);
    assertThatThrownBy(() -> b.putRaw(mislabelled, Optional.of(next.revision())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void case47ABlobReferenceWhoseLengthWasChangedIsCorrupt() throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    BlobRef blob = store.blobs().put("blob content".getBytes(StandardCharsets.UTF_8));
    Record r = committed(store.put(Record.draft(key, Kind.DOCUMENT, blob.body(), Meta.EMPTY), Optional.empty()));
    tamper(store, key, json -> withBody(json, new Body.Blob(blob.hash(), blob.length() + 1)));
    assertCorruptEverywhere(store, key, r.revision());
  }

  /** How a randomized run damages one stored record. */
  private enum Damage { BODY, HASH }

  /**
   * Random stores, random damage to bodies and revision hashes on both sides: every damaged record
   * is refused on every read, every sound one is served, sync reports exactly the damaged keys and
   * never copies one, and once repaired everything syncs. Seed: {@code -Dlethe.test.seed}.
   */
  @Test
  void randomDamageIsDetectedOnEveryReadAndNeverSyncedAndNoSoundRecordIsRefused() throws Exception {
    assumeTrue(canTamper(), "the substrate's stored records cannot be edited by a test");
    long seed = Long.getLong("lethe.test.seed", new Random().nextLong());
    System.out.println("StoreConformance random damage: seed " + seed + " (replay with -Dlethe.test.seed=" + seed + ")");
    Random rnd = new Random(seed);
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    List<Kind> kinds = List.of(Kind.DOCUMENT, Kind.LOG, Kind.CHECKPOINT);
    List<RecordKey> keys = new ArrayList<>();
    int n = 8 + rnd.nextInt(17);
    for (int i = 0; i < n; i++) {
      RecordKey k = new RecordKey("ns", "c" + rnd.nextInt(3), String.format("k%02d", i));
      keys.add(k);
      Store on = rnd.nextInt(4) == 0 ? b : a;
      Record r = committed(on.put(Record.draft(k, kinds.get(rnd.nextInt(kinds.size())), randomBody(rnd, on),
          Meta.byAuthor("alice")), Optional.empty()));
      if (rnd.nextInt(5) == 0) {
        tombstoneOf(on, r);
      }
    }
    assertThat(sync(a, b).corrupt()).as("seed %d", seed).isEmpty();
    // diverge: edits and deletes on either side
    for (RecordKey k : keys) {
      Store on = rnd.nextBoolean() ? a : b;
      Record cur = raw(on, k);
      if (!cur.isTombstone() && rnd.nextInt(3) == 0) {
        Record e = committed(on.put(Record.draft(k, cur.kind(), randomBody(rnd, on), Meta.byAuthor("bob")),
            Optional.of(cur.revision())));
        if (rnd.nextInt(4) == 0) {
          tombstoneOf(on, e);
        }
      }
    }
    // damage a random subset on each side, keeping what was there to repair it afterwards
    Map<Store, Map<RecordKey, Record>> sound = new LinkedHashMap<>();
    Map<Store, Map<RecordKey, String>> originals = new LinkedHashMap<>();
    for (Store s : List.of(a, b)) {
      Map<RecordKey, Record> before = new TreeMap<>();
      s.listRaw(KeyPrefix.all()).forEach(r -> before.put(r.key(), r));
      Map<RecordKey, String> damaged = new TreeMap<>();
      for (Record r : before.values()) {
        if (rnd.nextInt(4) == 0) {
          Damage d = Damage.values()[rnd.nextInt(Damage.values().length)];
          damaged.put(r.key(), JSON.format(r));
          tamper(s, r.key(), json -> d == Damage.HASH
              ? withHash(json, flipHex(r.revision().hash(), rnd.nextInt(64)))
              : withBody(json, damagedBody(r.body(), rnd)));
        }
      }
      damaged.keySet().forEach(before::remove);
      sound.put(s, before);
      originals.put(s, damaged);
    }
    // every read: damaged refused, sound served unchanged
    for (Store s : List.of(a, b)) {
      for (RecordKey k : originals.get(s).keySet()) {
        assertThatThrownBy(() -> s.getRaw(k)).as("seed %d, %s", seed, k).isInstanceOf(CorruptRecordException.class);
      }
      for (Record r : sound.get(s).values()) {
        assertThat(s.getRaw(r.key())).as("seed %d", seed).contains(r);
      }
      int limit = 1 + rnd.nextInt(4);
      List<RecordKey> listed = new ArrayList<>();
      List<RecordKey> refused = new ArrayList<>();
      Optional<RecordKey> after = Optional.empty();
      do {
        try {
          Page p = s.listRawPage(KeyPrefix.all(), after, limit);
          p.records().forEach(r -> listed.add(r.key()));
          after = p.next();
        } catch (CorruptRecordException e) {
          refused.add(e.key().orElseThrow());
          after = e.key();
        }
      } while (after.isPresent());
      assertThat(listed).as("seed %d", seed).containsExactlyElementsOf(sound.get(s).keySet());
      assertThat(refused).as("seed %d", seed).containsExactlyElementsOf(originals.get(s).keySet());
    }
    // sync reports exactly the damaged keys and writes neither side of them
    boolean forward = rnd.nextBoolean();
    SyncReport report = forward ? sync(a, b) : sync(b, a);
    TreeSet<RecordKey> damagedKeys = new TreeSet<>(originals.get(a).keySet());
    damagedKeys.addAll(originals.get(b).keySet());
    assertThat(report.corrupt()).as("seed %d", seed).extracting(SyncCorrupt::key).containsExactlyElementsOf(damagedKeys);
    assertThat(report.converged()).isFalse();
    for (RecordKey k : damagedKeys) {
      for (Store s : List.of(a, b)) {
        if (originals.get(s).containsKey(k)) {
          assertThatThrownBy(() -> s.getRaw(k)).isInstanceOf(CorruptRecordException.class);
        } else {
          assertThat(s.getRaw(k)).as("seed %d, %s", seed, k).isEqualTo(Optional.ofNullable(sound.get(s).get(k)));
        }
      }
    }
    for (RecordKey k : keys) {
      if (!damagedKeys.contains(k) && report.conflicts().stream().noneMatch(c -> c.key().equals(k))) {
        assertThat(raw(a, k).revision()).as("seed %d, %s", seed, k).isEqualTo(raw(b, k).revision());
      }
    }
    // repaired, everything syncs
    for (Store s : List.of(a, b)) {
      for (Map.Entry<RecordKey, String> e : originals.get(s).entrySet()) {
        tamper(s, e.getKey(), json -> e.getValue());
      }
    }
    SyncReport repaired = sync(a, b);
    assertThat(repaired.corrupt()).as("seed %d", seed).isEmpty();
    for (RecordKey k : keys) {
      if (repaired.conflicts().stream().noneMatch(c -> c.key().equals(k))) {
        assertThat(raw(a, k).revision()).as("seed %d, %s", seed, k).isEqualTo(raw(b, k).revision());
      }
    }
  }

  /** A random body: text, empty, the tombstone domain string, binary, or a blob stored on {@code s}. */
  private static Body randomBody(Random rnd, Store s) {
    switch (rnd.nextInt(6)) {
      case 0:
        return Body.Inline.text("");
      case 1:
        return Body.Inline.text(Tombstones.DOMAIN);
      case 2: {
        byte[] bytes = new byte[1 + rnd.nextInt(16)];
        rnd.nextBytes(bytes);
        return new Body.Inline(bytes);
      }
      case 3:
        return s.blobs().put(("blob " + rnd.nextInt(1000)).getBytes(StandardCharsets.UTF_8)).body();
      default:
        return Body.Inline.text("line " + rnd.nextInt(1000) + "\n");
    }
  }

  /** {@code body} with one byte flipped (an empty one gains a byte, a blob reference its length changed). */
  private static Body damagedBody(Body body, Random rnd) {
    if (body instanceof Body.Blob blob) {
      return new Body.Blob(blob.hash(), blob.length() + 1 + rnd.nextInt(3));
    }
    byte[] bytes = ((Body.Inline) body).bytes();
    if (bytes.length == 0) {
      return new Body.Inline(new byte[] {(byte) rnd.nextInt(256)});
    }
    int i = rnd.nextInt(bytes.length);
    bytes[i] = (byte) (bytes[i] ^ (1 << rnd.nextInt(8)));
    return new Body.Inline(bytes);
  }

  // ---- batched raw writes (docs/design/0115-batched-raw-writes.md) ---------------------------

  @Test
  void batchDecidesEachItemAsItsOwnPutRawAndAConflictStopsNoOther() {
    Record live = create(store, sibling, "v1");
    RecordKey third = new RecordKey("ns", "col", "third");
    Record x = foreign(key, 5, "x", List.of());
    Record x2 = foreign(key, 6, "x2", List.of(x.revision()));
    List<PutResult> results = store.putRawBatch(List.of(
        new RawPut(x, Optional.empty()),                                  // written
        new RawPut(foreign(sibling, 9, "s", List.of()), Optional.empty()), // Conflict: sibling is stored
        new RawPut(foreign(third, 2, "t", List.of()), Optional.of(rev(1, "nope"))), // NotFound
        new RawPut(x2, Optional.of(x.revision()))));                      // sees the first item's write
    assertThat(results).containsExactly(new Committed(x), new Conflict(live), new NotFound(), new Committed(x2));
    assertThat(raw(store, key)).isEqualTo(x2);
    assertThat(raw(store, sibling)).isEqualTo(live);
    assertThat(store.getRaw(third)).isEmpty();
    assertThat(store.putRawBatch(List.of())).isEmpty();
  }

  /**
   * The batch oracle: a seeded random run of batches (items over four keys, expectations drawn from
   * the revisions each key has held, none, or unknown ones) on the store under test, and the same
   * items one {@code putRaw} at a time on a second store of the substrate; every result and the
   * final contents are equal. Replay with {@code -Dlethe.store.batch.seed=N}.
   */
  @Test
  void randomBatchesDecideExactlyAsOnePutRawPerItem() throws Exception {
    long seed = Long.getLong("lethe.store.batch.seed", new java.util.Random().nextLong());
    System.out.println(getClass().getName() + " batch seed " + seed + " (replay: -Dlethe.store.batch.seed="
        + seed + ")");
    java.util.Random random = new java.util.Random(seed);
    Store single = open(cap, clock);
    List<RecordKey> keys = List.of(key, sibling, new RecordKey("ns", "col", "k3"), new RecordKey("ns", "other", "k4"));
    java.util.Map<RecordKey, List<Revision>> seen = new java.util.HashMap<>();
    for (int round = 0; round < 25; round++) {
      List<RawPut> batch = new ArrayList<>();
      int size = 1 + random.nextInt(10);
      for (int i = 0; i < size; i++) {
        RecordKey k = keys.get(random.nextInt(keys.size()));
        List<Revision> revs = seen.computeIfAbsent(k, x -> new ArrayList<>());
        long counter = 1 + random.nextInt(6);
        // a raw put takes only older ancestors (docs/design/0118-a-replicated-record-is-consistent.md)
        List<Revision> older = revs.stream().filter(v -> v.counter() < counter).toList();
        List<Revision> ancestors = older.isEmpty() || random.nextBoolean() ? List.of()
            : List.of(older.get(random.nextInt(older.size())));
        Record r = foreign(k, counter, "v" + random.nextInt(4), ancestors);
        int roll = random.nextInt(10);
        Optional<Revision> expected = roll < 3 || revs.isEmpty() ? Optional.empty()
            : roll < 9 ? Optional.of(revs.get(random.nextInt(revs.size()))) : Optional.of(rev(7, "unknown"));
        batch.add(new RawPut(r, expected));
        revs.add(r.revision());
      }
      List<PutResult> got = store.putRawBatch(batch);
      List<PutResult> want = new ArrayList<>();
      for (RawPut item : batch) {
        want.add(single.putRaw(item.record(), item.expected()));
      }
      assertThat(got).as("seed %d round %d: %s", seed, round, batch).isEqualTo(want);
      assertThat(store.listRaw(KeyPrefix.all())).as("seed %d round %d", seed, round)
          .isEqualTo(single.listRaw(KeyPrefix.all()));
    }
  }

  // ---- a raw put takes only consistent records (docs/design/0118-a-replicated-record-is-consistent.md)

  /** Records a raw put must refuse, each with the words its message must hold. */
  private Map<String, Record> inconsistentRecords(RecordKey k) {
    Record x = foreign(k, 5, "x", List.of(rev(4, "a")));
    Record t = new Record(k, Kind.TOMBSTONE, new Revision(5, Tombstones.HASH), rev(4, "a"), List.of(rev(4, "a")),
        Body.EMPTY, Meta.byAuthor("bob"), 33L, null, List.of());
    Map<String, Record> bad = new LinkedHashMap<>();
    bad.put("has deletedAt", x.withDeletion(7L, null));
    bad.put("has deletedBlob", x.withDeletion(null, ContentHash.ofUtf8("blob")));
    bad.put("parent 5:", x.withLineage(x.revision(), rev(5, "p"), List.of(rev(4, "a"))));
    bad.put("parent 9:", x.withLineage(x.revision(), rev(9, "p"), List.of(rev(4, "a"))));
    bad.put("ancestor 5:", x.withAncestors(List.of(rev(4, "a"), rev(5, "same counter"))));
    bad.put("ancestor 12:", x.withAncestors(List.of(rev(12, "newer"), rev(4, "a"))));
    bad.put("ancestor 6:", t.withAncestors(List.of(rev(6, "newer"), rev(4, "a"))));
    bad.put("parent 6:", t.withLineage(t.revision(), rev(6, "p"), List.of()));
    return bad;
  }

  @Test
  void case48ARawPutOfAnInconsistentRecordIsRefusedAndWritesNothing() {
    Record r = create(store, key, "v1");
    RecordKey absent = new RecordKey("ns", "col", "absent");
    inconsistentRecords(absent).forEach((words, bad) -> {
      assertThatThrownBy(() -> store.putRaw(bad, Optional.empty())).as(words)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot put " + absent).hasMessageContaining(words)
          .hasMessageEndingWith("(nothing written)");
      assertThat(store.getRaw(absent)).as(words).isEmpty();
    });
    inconsistentRecords(key).forEach((words, bad) -> {
      assertThatThrownBy(() -> store.putRaw(bad, Optional.of(r.revision()))).as(words)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(words);
      // a batch holding one such record writes none of its items, not even those before it
      Record fine = foreign(sibling, 2, "fine", List.of(rev(1, "f")));
      assertThatThrownBy(() -> store.putRawBatch(List.of(new RawPut(fine, Optional.empty()),
          new RawPut(bad, Optional.of(r.revision()))))).as(words).isInstanceOf(IllegalArgumentException.class);
      assertThat(store.getRaw(sibling)).as(words).isEmpty();
    });
    assertThat(raw(store, key)).isEqualTo(r);
    assertThat(store.listRaw(KeyPrefix.all())).containsExactly(r);
  }

  @Test
  void aRawPutTakesAnUnstampedTombstoneItsOwnRevisionAsAncestorAndTheCounterJustBelow() {
    Record t = new Record(key, Kind.TOMBSTONE, new Revision(5, Tombstones.HASH), rev(4, "a"), List.of(rev(4, "a")),
        Body.EMPTY, Meta.byAuthor("bob"), null, null, List.of());
    assertThat(store.putRaw(t, Optional.empty())).isInstanceOf(Committed.class);
    Record x = foreign(sibling, 5, "x", List.of(rev(4, "b")));
    Record self = x.withAncestors(List.of(x.revision(), rev(4, "b")));
    assertThat(committed(store.putRaw(self, Optional.empty())).ancestors()).containsExactly(rev(4, "b"));
  }

  /**
   * Random records, some consistent and some not, put raw one by one (and in batches); the oracle
   * says from the fields alone whether each is consistent. A refused one leaves the store as it was.
   */
  @Test
  void randomRawPutsAreRefusedExactlyWhenTheRecordIsInconsistent() {
    long seed = Long.getLong("lethe.store.lineage.seed", new Random().nextLong());
    System.out.println(getClass().getName() + " lineage seed " + seed + " (replay: -Dlethe.store.lineage.seed="
        + seed + ")");
    Random random = new Random(seed);
    int refused = 0;
    for (int round = 0; round < 200; round++) {
      RecordKey k = new RecordKey("ns", "rand", "k" + round);
      long counter = 1 + random.nextInt(6);
      boolean tombstone = random.nextInt(3) == 0;
      Revision parent = random.nextInt(4) == 0 ? null : rev(random.nextInt(8), "p" + random.nextInt(3));
      List<Revision> ancestors = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        ancestors.add(rev(random.nextInt(8), "a" + random.nextInt(3)));
      }
      Long deletedAt = random.nextBoolean() ? null : Long.valueOf(random.nextInt(1000));
      // a pinned blob the store holds (a server refuses a record naming a blob it lacks)
      String deletedBlob = random.nextInt(4) == 0
          ? store.blobs().put(("b" + round).getBytes(StandardCharsets.UTF_8)).hash() : null;
      Body body = tombstone ? Body.EMPTY : Body.Inline.text("v" + round);
      Kind kind = tombstone ? Kind.TOMBSTONE : Kind.DOCUMENT;
      Revision self = tombstone ? new Revision(counter, Tombstones.HASH) : RevisionHash.revision(counter, kind, body, Meta.byAuthor("bob"), List.of());
      if (random.nextInt(5) == 0) {
        ancestors.add(self);
      }
      Record r = new Record(k, kind, self, parent, ancestors, body, Meta.byAuthor("bob"), deletedAt, deletedBlob,
          List.of());
      boolean consistent = (tombstone || (deletedAt == null && deletedBlob == null))
          && (parent == null || parent.counter() < counter)
          && ancestors.stream().allMatch(a -> a.equals(self) || a.counter() < counter);
      List<Record> before = store.listRaw(KeyPrefix.all());
      if (consistent) {
        assertThat(store.putRaw(r, Optional.empty())).as("seed %d round %d: %s", seed, round, r)
            .isInstanceOf(Committed.class);
      } else {
        refused++;
        boolean batch = random.nextBoolean();
        assertThatThrownBy(() -> {
          if (batch) {
            store.putRawBatch(List.of(new RawPut(r, Optional.empty())));
          } else {
            store.putRaw(r, Optional.empty());
          }
        }).as("seed %d round %d: %s", seed, round, r).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.listRaw(KeyPrefix.all())).as("seed %d round %d", seed, round).isEqualTo(before);
      }
    }
    assertThat(refused).as("seed %d: both outcomes occur", seed).isBetween(20, 190);
  }

  /**
   * Every way a store writes a record itself (put, edit, recreation, delete, reset, a merge, sync's
   * copies and fast-forwards) yields a record a raw put takes, so sync never carries a record its
   * peer refuses.
   */
  @Test
  void everyRecordTheStoresWriteThemselvesIsOneARawPutTakes() throws Exception {
    long seed = Long.getLong("lethe.store.lineage.seed", new Random().nextLong());
    System.out.println(getClass().getName() + " stamped seed " + seed + " (replay: -Dlethe.store.lineage.seed="
        + seed + ")");
    Random random = new Random(seed);
    Store a = store;
    Store b = open(cap, clock);
    List<RecordKey> keys = List.of(new RecordKey("n", "c", "a"), new RecordKey("n", "c", "b"),
        new RecordKey("n", "d", "c"), new RecordKey("m", "c", "d"));
    for (int step = 0; step < 150; step++) {
      Store s = random.nextBoolean() ? a : b;
      RecordKey k = keys.get(random.nextInt(keys.size()));
      Kind kind = random.nextBoolean() ? Kind.LOG : Kind.DOCUMENT;
      clock.advance(Duration.ofSeconds(1));
      Optional<Record> cur = s.getRaw(k);
      switch (random.nextInt(6)) {
        case 0, 1 -> {
          Record d = Record.draft(k, cur.filter(c -> !c.isTombstone()).map(Record::kind).orElse(kind),
              random.nextBoolean() ? Body.Inline.text("line" + step + "\n") : s.blobs().put(("b" + step).getBytes(
                  StandardCharsets.UTF_8)).body(), Meta.byAuthor("alice"));
          s.put(d, cur.filter(c -> !c.isTombstone()).map(Record::revision));
        }
        case 2 -> s.deleteAs(k, Optional.empty(), random.nextBoolean() ? Optional.of("bob") : Optional.empty());
        case 3 -> Sync.run(a, b, KeyPrefix.all(), SyncOptions.DEFAULTS);
        case 4 -> Reset.run(s, KeyPrefix.namespace(k.namespace()), Optional.empty(), Progress.NONE);
        default -> Collect.run(s, KeyPrefix.all(), Duration.ofSeconds(3), clock, Progress.NONE);
      }
      for (Store each : List.of(a, b)) {
        for (Record r : each.listRaw(KeyPrefix.all())) {
          assertThat(dev.lethe.store.core.planner.RawPutPlanner.problem(r)).as("seed %d step %d: %s", seed, step, r)
              .isEmpty();
        }
      }
    }
  }

  // ---- identity, peers and the purge log (docs/design/0150-store-identity-and-peers.md) -------

  private static final Duration WEEK = Duration.ofDays(7);

  private CollectReport collect(Store s, Duration horizon, dev.lethe.store.core.collect.CollectGate.Mode mode) {
    return Collect.run(s, KeyPrefix.all(), horizon, clock, Progress.NONE, mode,
        dev.lethe.store.core.collect.CollectGate.DEFAULT_SKEW);
  }

  @Test
  void case49AStoreHasOneStableIdOfItsOwn() throws Exception {
    String id = store.ledger().storeId();
    assertThat(id).matches("[0-9a-f-]{36}");
    assertThat(store.ledger().storeId()).isEqualTo(id);
    assertThat(open(cap, clock).ledger().storeId()).isNotEqualTo(id);
  }

  @Test
  void case50PeersAreRecordedReplacedAndForgotten() {
    var ledger = store.ledger();
    String p1 = dev.lethe.store.core.ledger.StoreIds.create();
    String p2 = dev.lethe.store.core.ledger.StoreIds.create();
    ledger.recordPeer(new dev.lethe.store.core.ledger.Peer(p1, "file:/a", 10, null, 0));
    ledger.recordPeer(new dev.lethe.store.core.ledger.Peer(p2, "http://b", 20, 5L, -3));
    ledger.recordPeer(new dev.lethe.store.core.ledger.Peer(p1, "file:/a2", 30, 7L, 4));
    assertThat(ledger.peers()).containsExactlyElementsOf(new TreeMap<>(Map.of(
        p1, new dev.lethe.store.core.ledger.Peer(p1, "file:/a2", 30, 7L, 4),
        p2, new dev.lethe.store.core.ledger.Peer(p2, "http://b", 20, 5L, -3))).values());
    assertThat(ledger.forgetPeer(p1)).isTrue();
    assertThat(ledger.forgetPeer(p1)).isFalse();
    assertThat(ledger.peers()).extracting(dev.lethe.store.core.ledger.Peer::id).containsExactly(p2);
    assertThat(ledger.collectCutoff()).isEmpty();
    assertThatThrownBy(() -> ledger.trimPurged(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no collect is recorded"); // docs/design/0151-purge-log.md "Trimming"
    ledger.recordCollect(1234);
    assertThat(ledger.collectCutoff()).contains(1234L);
  }

  @Test
  void case51EveryRemovalOfATombstoneIsInThePurgeLogAndNothingElseIs() {
    Record r = create(store, key, "v1");
    Record r2 = edit(store, r, "v2");
    Record t = tombstoneOf(store, r2);
    Record live = create(store, sibling, "kept");
    clock.advance(Duration.ofDays(8));
    assertThat(collect(store, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.REFUSE).purged()).isEqualTo(1);
    assertThat(store.purge(live.key(), Optional.of(live.revision()))).isInstanceOf(Deleted.class);
    RecordKey other = new RecordKey("ns", "other", "x");
    Record t2 = tombstoneOf(store, create(store, other, "x"));
    assertThat(store.purge(other, Optional.of(t2.revision()))).isInstanceOf(Deleted.class);
    List<dev.lethe.store.core.ledger.PurgeEntry> log = store.ledger().purged(KeyPrefix.all());
    assertThat(log).extracting(dev.lethe.store.core.ledger.PurgeEntry::key).containsExactly(key, other);
    dev.lethe.store.core.ledger.PurgeEntry e = log.get(0);
    assertThat(e.tombstone()).isEqualTo(t.revision());
    assertThat(e.deleted()).isEqualTo(r2.revision());
    assertThat(e.history()).startsWith(r.revision());
    assertThat(e.deletedAt()).isEqualTo(t.deletedAt());
    assertThat(e.purgedAt()).isEqualTo(clock.millis());
    assertThat(store.ledger().purged(KeyPrefix.collection("ns", "other"))).hasSize(1);
    // docs/design/0151-purge-log.md "Trimming": never past the last collect's cutoff (now - a week)
    long cutoff = store.ledger().collectCutoff().orElseThrow();
    assertThatThrownBy(() -> store.ledger().trimPurged(cutoff + 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must outlive the tombstones");
    assertThat(store.ledger().purged(KeyPrefix.all())).hasSize(2);
    assertThat(store.ledger().trimPurged(cutoff)).isZero();
    store.ledger().recordCollect(clock.millis() + 1);
    assertThat(store.ledger().trimPurged(clock.millis())).isZero();
    assertThat(store.ledger().trimPurged(clock.millis() + 1)).isEqualTo(2);
    assertThat(store.ledger().purged(KeyPrefix.all())).isEmpty();
  }


  @Test
  void case52AStalePeerAfterCollectGetsTheTombstoneAndNothingComesBack() throws Exception {
    for (boolean forward : new boolean[] {true, false}) {
      Store a = open(cap, clock);
      Store stale = open(cap, clock);
      Record r1 = create(a, key, "v1");
      Record r2 = edit(a, r1, "v2");
      // one stale peer holds the deleted revision, a second an older one
      stale.putRaw(forward ? r2 : r1, Optional.empty());
      Record t = tombstoneOf(a, r2);
      clock.advance(Duration.ofDays(8));
      assertThat(collect(a, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.REFUSE).purged()).isEqualTo(1);
      SyncReport rep = forward ? sync(a, stale) : sync(stale, a);
      assertThat(rep.restored()).as("forward=%s", forward).isEqualTo(1);
      assertThat(rep.copied()).isZero();
      assertThat(rep.converged()).isTrue();
      assertThat(a.get(key)).isEmpty();
      assertThat(stale.get(key)).isEmpty();
      assertThat(raw(a, key).revision()).isEqualTo(t.revision());
      assertThat(raw(stale, key).revision()).isEqualTo(t.revision());
      assertThat(raw(a, key).deletedAt()).isEqualTo(t.deletedAt());
      assertThat(sync(a, stale).restored()).isZero();
    }
  }

  @Test
  void case53AnOfflineEditOfTheDeletedRevisionIsAConflictAsIfTheTombstoneWereThere() throws Exception {
    Store a = open(cap, clock);
    Store laptop = open(cap, clock);
    Record r = create(a, key, "v1");
    laptop.putRaw(r, Optional.empty());
    Record edited = edit(laptop, r, "edited offline");
    tombstoneOf(a, r);
    clock.advance(Duration.ofDays(8));
    assertThat(collect(a, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.REFUSE).purged()).isEqualTo(1);
    for (boolean forward : new boolean[] {true, false}) {
      SyncReport rep = forward ? sync(a, laptop) : sync(laptop, a);
      assertThat(rep.conflicts()).hasSize(1);
      assertThat(rep.conflicts().get(0).reason()).contains("collected");
      assertThat(rep.converged()).isFalse();
      assertThat(a.getRaw(key)).isEmpty();
      assertThat(raw(laptop, key)).isEqualTo(edited);
    }
  }

  @Test
  void case54ARecreationOnThePeerAfterTheDeleteIsCopied() throws Exception {
    Store a = open(cap, clock);
    Store b = open(cap, clock);
    Record r = create(a, key, "v1");
    tombstoneOf(a, r);
    clock.advance(Duration.ofSeconds(1));
    sync(a, b);
    Record again = committed(b.put(draft(key, "again"), Optional.empty()));
    clock.advance(Duration.ofDays(8));
    assertThat(collect(a, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.REFUSE).purged()).isEqualTo(1);
    SyncReport rep = sync(a, b);
    assertThat(rep.restored()).isZero();
    assertThat(rep.copied()).isEqualTo(1);
    assertThat(raw(a, key)).isEqualTo(again);
  }

  @Test
  void case55SyncRecordsEachSideOnTheOtherWithItsOwnClock() throws Exception {
    Store a = open(cap, clock);
    MutableClock slow = new MutableClock(clock.millis() - Duration.ofDays(60).toMillis());
    Store b = open(cap, slow);
    create(a, key, "v1");
    sync(a, b);
    assertThat(a.ledger().peers()).singleElement().satisfies(p -> {
      assertThat(p.id()).isEqualTo(b.ledger().storeId());
      assertThat(p.lastSyncMs()).isEqualTo(clock.millis());
      assertThat(p.clockOffsetMs()).isEqualTo(-Duration.ofDays(60).toMillis());
      assertThat(p.uri()).isEqualTo(String.valueOf(b));
    });
    assertThat(b.ledger().peers()).singleElement().satisfies(p -> {
      assertThat(p.id()).isEqualTo(a.ledger().storeId());
      assertThat(p.lastSyncMs()).isEqualTo(slow.millis());
      assertThat(p.clockOffsetMs()).isEqualTo(Duration.ofDays(60).toMillis());
    });
  }

  @Test
  void case56CollectRefusesWhatAPeerHasNotSyncedPastUnlessSeenByAllOrForced() throws Exception {
    Store a = open(cap, clock);
    Store behind = open(cap, clock);
    Record early = create(a, key, "early");
    Record late = create(a, sibling, "late");
    tombstoneOf(a, early);
    clock.advance(Duration.ofHours(1));
    sync(a, behind);                      // behind has seen the first delete
    clock.advance(Duration.ofHours(1));
    tombstoneOf(a, late);                 // but not this one
    clock.advance(Duration.ofDays(8));
    CollectReport refused = collect(a, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.REFUSE);
    assertThat(refused.refused()).isTrue();
    assertThat(refused.purged()).isZero();
    assertThat(refused.heldBack()).isEqualTo(Map.of(behind.ledger().storeId(), 1));
    assertThat(a.getRaw(key)).isPresent();
    CollectReport seen = collect(a, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.SEEN_BY_ALL);
    assertThat(seen.refused()).isFalse();
    assertThat(seen.purged()).isEqualTo(1);
    assertThat(a.getRaw(key)).isEmpty();
    assertThat(a.getRaw(sibling)).isPresent();
    assertThat(collect(a, WEEK, dev.lethe.store.core.collect.CollectGate.Mode.FORCE).purged()).isEqualTo(1);
    assertThat(a.getRaw(sibling)).isEmpty();
    assertThat(a.ledger().collectCutoff()).contains(clock.millis() - WEEK.toMillis());
  }

  @Test
  void case57ATombstoneWhoseDateAClockGotWrongIsReportedAndKept() throws Exception {
    Store server = open(cap, clock);
    // a laptop whose clock runs 60 days slow: its delete is stamped 60 days in the past
    MutableClock slow = new MutableClock(clock.millis() - Duration.ofDays(60).toMillis());
    Store laptop = open(cap, slow);
    Record r = create(laptop, key, "v1");
    sync(laptop, server);
    tombstoneOf(laptop, r);
    // a tombstone from a clock 2 days ahead
    Record f = create(server, sibling, "f");
    Record future = new Record(sibling, Kind.TOMBSTONE, Tombstones.revisionAfter(f.revision()), f.revision(),
        List.of(f.revision()), Body.EMPTY, f.meta(), clock.millis() + Duration.ofDays(2).toMillis(), null, List.of());
    assertThat(server.putRaw(future, Optional.of(f.revision()))).isInstanceOf(Committed.class);
    clock.advance(Duration.ofSeconds(1));
    slow.advance(Duration.ofSeconds(1));
    sync(laptop, server);
    clock.advance(Duration.ofSeconds(1));
    CollectReport c = collect(server, Duration.ofDays(30), dev.lethe.store.core.collect.CollectGate.Mode.FORCE);
    assertThat(c.purged()).isZero();
    assertThat(c.skewed()).containsOnlyKeys(key, sibling);
    assertThat(c.skewed().get(key)).contains(laptop.ledger().storeId());
    assertThat(c.skewed().get(sibling)).contains("future");
    assertThat(server.getRaw(key)).isPresent();
    assertThat(server.getRaw(sibling)).isPresent();
    // three days on, the laptop's delete is three days old once its clock is allowed for; the
    // future-dated one is a day old by this clock but might be stamped by the slow laptop
    clock.advance(Duration.ofDays(3));
    CollectReport later = collect(server, Duration.ofDays(1), dev.lethe.store.core.collect.CollectGate.Mode.FORCE);
    assertThat(later.purged()).isEqualTo(1);
    assertThat(server.getRaw(key)).isEmpty();
    assertThat(later.skewed()).containsOnlyKeys(sibling);
    assertThat(server.ledger().forgetPeer(laptop.ledger().storeId())).isTrue();
    assertThat(collect(server, Duration.ofDays(1), dev.lethe.store.core.collect.CollectGate.Mode.FORCE).purged()).isEqualTo(1);
  }
}
