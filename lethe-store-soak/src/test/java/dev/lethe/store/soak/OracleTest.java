package dev.lethe.store.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.tombstone.Tombstones;
import dev.lethe.store.soak.Event.Call;
import dev.lethe.store.soak.Event.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The oracle on hand-built histories: one clean history, and one breaking each row. */
class OracleTest {

  static final RecordKey K = new RecordKey("soak-t", Oracle.MAIN, "k0");
  static final RecordKey ONCE = new RecordKey("soak-t", Oracle.ONCE, "w0-1");
  static final RecordKey GC = new RecordKey("soak-t", Oracle.GC, "w0-2");
  static final RunFacts TWO_WRITERS = new RunFacts(2, true, 1, 1, 1);

  static Revision rev(long counter, char h) {
    return new Revision(counter, String.valueOf(h).repeat(64));
  }

  static Record live(RecordKey key, Revision r, String token, Revision... ancestors) {
    List<Revision> a = Arrays.asList(ancestors);
    return new Record(key, Kind.DOCUMENT, r, a.isEmpty() ? null : a.get(0), a, Body.Inline.text(token), Meta.EMPTY,
        null, null, List.of());
  }

  static Record tomb(RecordKey key, Revision deleted, Revision... older) {
    List<Revision> a = new ArrayList<>(List.of(deleted));
    a.addAll(Arrays.asList(older));
    return new Record(key, Kind.TOMBSTONE, new Revision(deleted.counter() + 1, Tombstones.HASH), deleted, a, Body.EMPTY,
        Meta.EMPTY, 1L, null, List.of());
  }

  static Event put(int w, Record r, Optional<Revision> expected, Outcome outcome, Record answer) {
    return new Event(w, Call.PUT, r.key(), expected, outcome, answer, Event.tokenOf(r), false);
  }

  static Event committed(int w, Record r) {
    return put(w, r, Optional.ofNullable(r.parent()).filter(p -> !p.hash().equals(Tombstones.HASH)), Outcome.COMMITTED, r);
  }

  static Event deleted(int w, Record tombstone) {
    return new Event(w, Call.DELETE, tombstone.key(), Optional.of(tombstone.parent()), Outcome.DELETED_WROTE, tombstone, null, false);
  }

  /** A probe's second half: an edit on the revision a delete replaced, refused. */
  static Event refusedEdit(int w, RecordKey key, Revision stale) {
    return new Event(w, Call.PUT, key, Optional.of(stale), Outcome.NOT_FOUND, null, "late", true);
  }

  static FinalState end(Record... records) {
    Map<RecordKey, Record> raw = new TreeMap<>();
    Map<RecordKey, Record> consumer = new TreeMap<>();
    for (Record r : records) {
      raw.put(r.key(), r);
      if (!r.isTombstone()) {
        consumer.put(r.key(), r);
      }
    }
    return new FinalState(List.of(raw), List.of(consumer));
  }

  /** The rows of a verdict that are not 0. */
  static Map<Row, Long> violations(Oracle.Verdict v) {
    Map<Row, Long> out = new EnumMap<>(Row.class);
    v.counts().forEach((row, count) -> {
      if (count != 0) {
        out.put(row, count);
      }
    });
    return out;
  }

  final Record a1 = live(K, rev(1, 'a'), "a");
  final Record b2 = live(K, rev(2, 'b'), "b", rev(1, 'a'));
  final Record t3 = tomb(K, rev(2, 'b'), rev(1, 'a'));
  final Record once1 = live(ONCE, rev(1, 'c'), "c");

  /** create, edit, delete, a refused late edit, a write-once create: nothing to count. */
  List<Event> clean() {
    return new ArrayList<>(List.of(committed(0, a1), committed(1, b2), deleted(0, t3),
        refusedEdit(1, K, b2.revision()), committed(1, once1)));
  }

  @Test
  void aCleanHistoryCountsNothing() {
    Oracle.Verdict v = Oracle.judge(clean(), end(t3, once1), TWO_WRITERS);
    assertThat(violations(v)).isEmpty();
    assertThat(v.passed()).isTrue();
    assertThat(v.info()).containsEntry("delete-versus-edit conflicts", 1L).containsEntry("acknowledged writes", 4L);
  }

  @Test
  void anAcknowledgedEditMissingFromTheFinalLineageIsALostUpdate() {
    Record c2 = live(K, rev(2, 'c'), "c2", rev(1, 'a'));
    Oracle.Verdict v = Oracle.judge(List.of(committed(0, a1), committed(1, b2), refusedEdit(1, K, a1.revision()),
        committed(0, once1)), end(c2, once1), TWO_WRITERS);
    assertThat(violations(v)).containsExactly(Map.entry(Row.LostUpdate, 1L));
  }

  @Test
  void aFinalRecordOlderThanAnAcknowledgedEditIsALostUpdate() {
    List<Event> h = clean();
    Oracle.Verdict v = Oracle.judge(h, end(b2, once1), TWO_WRITERS);
    assertThat(violations(v)).containsExactly(Map.entry(Row.AckedDeleteLost, 1L));
    v = Oracle.judge(h.subList(0, 2), end(a1), new RunFacts(2, false, 0, 0, 0));
    assertThat(violations(v)).containsEntry(Row.LostUpdate, 1L);
  }

  @Test
  void oneBodyStoredAsTwoRevisionsIsADuplicateUpdate() {
    Record again = new Record(K, Kind.DOCUMENT, new Revision(3, b2.revision().hash()), b2.revision(),
        List.of(b2.revision(), a1.revision()), Body.Inline.text("b"), Meta.EMPTY, null, null, List.of());
    Oracle.Verdict v = Oracle.judge(List.of(committed(0, a1), committed(1, b2), refusedEdit(1, K, a1.revision())),
        end(again), TWO_WRITERS);
    assertThat(violations(v)).containsExactly(Map.entry(Row.DuplicateUpdate, 1L));
  }

  @Test
  void aRetriedRecreateAppliedAgainAfterAnotherWritersDeleteIsNoDuplicate() {
    // writer 0 recreates "r" over t3 (ambiguous, but applied as r4); writer 1 deletes r4 (t5);
    // writer 0's retry, sent unchanged with no expected revision, recreates "r" over t5 as r6
    Record r4 = live(K, rev(4, 'e'), "r", t3.revision(), rev(2, 'b'), rev(1, 'a'));
    Record t5 = tomb(K, r4.revision(), t3.revision(), rev(2, 'b'), rev(1, 'a'));
    Record r6 = live(K, rev(6, 'e'), "r", t5.revision(), r4.revision(), t3.revision(), rev(2, 'b'), rev(1, 'a'));
    List<Event> h = clean();
    h.add(new Event(0, Call.PUT, K, Optional.empty(), Outcome.AMBIGUOUS, null, "r", false));
    h.add(new Event(1, Call.GET_RAW, K, Optional.empty(), Outcome.OBSERVED, r4, null, false));
    h.add(deleted(1, t5));
    h.add(committed(0, r6));
    assertThat(violations(Oracle.judge(h, end(r6, once1), TWO_WRITERS))).isEmpty();
  }

  @Test
  void aTokenRecreatedOverATombstoneOfAnotherLineIsADuplicate() {
    // the second "r" sits over a tombstone that does not descend from the first: applied twice
    Record r4 = live(K, rev(4, 'e'), "r", t3.revision(), rev(2, 'b'), rev(1, 'a'));
    Record t3b = tomb(K, rev(2, 'f'), rev(1, 'a'));
    Record r4b = live(K, rev(4, 'd'), "r", t3b.revision(), rev(2, 'f'), rev(1, 'a'));
    List<Event> h = clean();
    h.add(committed(0, r4));
    h.add(new Event(1, Call.GET_RAW, K, Optional.empty(), Outcome.OBSERVED, t3b, null, false));
    Oracle.Verdict v = Oracle.judge(h, end(r4b, once1), TWO_WRITERS);
    assertThat(violations(v)).containsEntry(Row.DuplicateUpdate, 1L);
  }

  @Test
  void twoAcknowledgedEditsOnOneBaseAreAStaleBase() {
    Record c2 = live(K, rev(2, 'c'), "c2", rev(1, 'a'));
    Record d3 = live(K, rev(3, 'd'), "d3", rev(2, 'c'), rev(1, 'a'));
    Oracle.Verdict v = Oracle.judge(List.of(committed(0, a1), committed(1, b2), committed(0, c2), committed(1, d3),
        refusedEdit(1, K, a1.revision())), end(d3), TWO_WRITERS);
    assertThat(violations(v)).containsEntry(Row.StaleBaseCommitted, 1L).containsEntry(Row.LostUpdate, 1L).hasSize(2);
  }

  @Test
  void anEditOnTheBaseOfADeleteThatWroteATombstoneIsAStaleBase() {
    Record t2 = tomb(K, rev(1, 'a'));
    Oracle.Verdict v = Oracle.judge(List.of(committed(0, a1), deleted(0, t2), committed(1, b2),
        refusedEdit(1, K, a1.revision())), end(b2), TWO_WRITERS);
    assertThat(violations(v)).containsEntry(Row.StaleBaseCommitted, 1L).containsEntry(Row.AckedDeleteLost, 1L).hasSize(2);
  }

  @Test
  void anEditAcknowledgedOverAnotherRevisionThanItExpectedIsAStaleBase() {
    Record c3 = live(K, rev(3, 'c'), "c3", rev(2, 'b'), rev(1, 'a'));
    Event stale = put(1, c3, Optional.of(a1.revision()), Outcome.COMMITTED, c3);
    Oracle.Verdict v = Oracle.judge(List.of(committed(0, a1), committed(0, b2), stale, refusedEdit(1, K, a1.revision())),
        end(c3), TWO_WRITERS);
    // once for being stored over b2, once for sharing its base a1 with b2
    assertThat(violations(v)).containsExactly(Map.entry(Row.StaleBaseCommitted, 2L));
  }

  @Test
  void aWriteOnceRecordThatAReplicaDoesNotAnswerIsAUniqueWriteLost() {
    Oracle.Verdict v = Oracle.judge(clean(), end(t3), TWO_WRITERS);
    assertThat(violations(v)).containsExactly(Map.entry(Row.UniqueWriteLost, 1L));
  }

  @Test
  void aCollectedKeyLiveAgainIsAnAckedDeleteLost() {
    Record g1 = live(GC, rev(1, 'e'), "g");
    List<Event> h = clean();
    h.add(committed(0, g1));
    h.add(deleted(0, tomb(GC, g1.revision())));
    assertThat(violations(Oracle.judge(h, end(t3, once1), TWO_WRITERS))).isEmpty();
    assertThat(violations(Oracle.judge(h, end(t3, once1, g1), TWO_WRITERS))).containsExactly(Map.entry(Row.AckedDeleteLost, 1L));
  }

  @Test
  void aTombstoneWithABodyOrALiveRecordWithADeletionTimeIsMixed() {
    Record withBody = new Record(K, Kind.TOMBSTONE, t3.revision(), t3.parent(), t3.ancestors(), Body.Inline.text("x"),
        Meta.EMPTY, 1L, null, List.of());
    assertThat(violations(Oracle.judge(clean(), end(withBody, once1), TWO_WRITERS)))
        .containsExactly(Map.entry(Row.MixedLiveAndTombstone, 1L));
    Record deletedLive = once1.withDeletion(5L, null);
    assertThat(violations(Oracle.judge(clean(), end(t3, deletedLive), TWO_WRITERS)))
        .containsExactly(Map.entry(Row.MixedLiveAndTombstone, 1L));
  }

  @Test
  void replicasAnsweringDifferentRawRecordsDisagree() {
    FinalState one = end(t3, once1);
    FinalState other = end(b2, once1);
    FinalState both = new FinalState(List.of(one.raw().get(0), other.raw().get(0)), List.of(one.consumer().get(0), one.consumer().get(0)));
    Map<Row, Long> rows = violations(Oracle.judge(clean(), both, TWO_WRITERS));
    assertThat(rows).containsEntry(Row.ReplicasDisagree, 1L).containsEntry(Row.ConsumerRawMismatch, 1L).hasSize(2);
  }

  @Test
  void aConsumerAnswerThatIsNotTheRawRecordIsAMismatch() {
    FinalState raw = end(t3, once1);
    Map<RecordKey, Record> consumer = new TreeMap<>(raw.consumer().get(0));
    consumer.put(K, b2);
    Map<Row, Long> rows = violations(Oracle.judge(clean(), new FinalState(raw.raw(), List.of(consumer)), TWO_WRITERS));
    assertThat(rows).containsExactly(Map.entry(Row.ConsumerRawMismatch, 1L));
  }

  @Test
  void aRunWithoutADeleteVersusEditConflictProvedNothing() {
    List<Event> h = clean();
    h.remove(3);
    assertThat(violations(Oracle.judge(h, end(t3, once1), TWO_WRITERS)))
        .containsExactly(Map.entry(Row.NoDeleteConflictsObserved, 1L));
  }

  @Test
  void aWriterWithoutAnAcknowledgedWriteOrChaosWithTooFewServingKillsIsNoProgress() {
    assertThat(violations(Oracle.judge(clean(), end(t3, once1), new RunFacts(3, true, 1, 1, 1))))
        .containsExactly(Map.entry(Row.NoProgress, 1L));
    assertThat(violations(Oracle.judge(clean(), end(t3, once1), new RunFacts(2, true, 0, 0, 1))))
        .containsExactly(Map.entry(Row.NoProgress, 1L));
    // many kills, but of replicas still starting: the chaos proved nothing
    Oracle.Verdict starting = Oracle.judge(clean(), end(t3, once1), new RunFacts(2, true, 15, 1, 2));
    assertThat(violations(starting)).containsExactly(Map.entry(Row.NoProgress, 1L));
    assertThat(starting.examples()).anySatisfy(e -> assertThat(e).contains("killed 1 serving replica(s) (15 kills)")
        .contains("at least 2"));
    assertThat(violations(Oracle.judge(clean(), end(t3, once1), new RunFacts(2, true, 3, 2, 2)))).isEmpty();
    assertThat(violations(Oracle.judge(clean(), end(t3, once1), new RunFacts(2, false, 0, 0, 0)))).isEmpty();
  }

  @Test
  void anAmbiguousWriteSeenLaterIsCountedAsWritten() {
    List<Event> h = clean();
    h.add(1, put(1, b2, Optional.of(a1.revision()), Outcome.AMBIGUOUS, null));
    Oracle.Verdict v = Oracle.judge(h, end(t3, once1), TWO_WRITERS);
    assertThat(violations(v)).isEmpty();
    assertThat(v.info()).containsEntry("ambiguous calls", 1L).containsEntry("ambiguous writes later seen written", 1L);
  }
}
