package dev.lethe.store.core.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.tombstone.Tombstones;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.assertj.core.api.Assertions;

/** The planners as pure functions: each rule without a substrate. */
class PlannersTest {

  private final RecordKey key = new RecordKey("n", "c", "i");
  private final Record live = new Record(key, Kind.DOCUMENT, RevisionHash.revision(4, Kind.DOCUMENT, Body.Inline.text("v4")),
      new Revision(3, ContentHash.ofUtf8("v3")), List.of(new Revision(3, ContentHash.ofUtf8("v3"))),
      Body.Inline.text("v4"), new Meta("alice", null, 100L, 200L, null), null, null, List.of());
  private final Record draft = Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v5"), Meta.byAuthor("bob"));

  @Test
  void deleteOfLivePlansATombstoneAndStaleExpectedPlansAConflict() {
    Plan<?> p = DeletePlanner.plan(Optional.of(live), Optional.of(live.revision()), Optional.empty(), 999, 32);
    assertThat(p).isInstanceOf(Plan.Write.class);
    Record t = ((Plan.Write<?>) p).record();
    assertThat(t.revision()).isEqualTo(new Revision(5, Tombstones.HASH));
    assertThat(t.ancestors()).containsExactly(live.revision(), live.parent());
    assertThat(t.deletedAt()).isEqualTo(999L);
    assertThat(DeletePlanner.plan(Optional.of(live), Optional.of(live.parent()), Optional.empty(), 1, 32))
        .isEqualTo(new Plan.Reply<>(new Conflict(live)));
    assertThat(DeletePlanner.plan(Optional.empty(), Optional.empty(), Optional.empty(), 1, 32))
        .isEqualTo(new Plan.Reply<>(Deleted.nothingWritten()));
  }

  @Test
  void consumerPutOverTombstoneRecreatesOnlyWithoutExpected() {
    Record t = Tombstones.of(live, Optional.empty(), 500, 32);
    Plan<?> p = ConsumerPutPlanner.plan(Optional.of(t), draft, Optional.empty(), 700, 32);
    Record r = ((Committed) p.result()).record();
    assertThat(r.revision().counter()).isEqualTo(6);
    assertThat(r.parent()).isEqualTo(t.revision());
    assertThat(r.meta().created()).isEqualTo(700L);
    assertThat(ConsumerPutPlanner.plan(Optional.of(t), draft, Optional.of(t.revision()), 700, 32))
        .isEqualTo(new Plan.Reply<>(new NotFound()));
  }

  @Test
  void consumerPutRejectsATombstoneDraft() {
    Assertions.assertThatThrownBy(() -> ConsumerPutPlanner.plan(Optional.empty(),
        Record.draft(key, Kind.TOMBSTONE, Body.EMPTY, Meta.EMPTY), Optional.empty(), 1, 32))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rawPutFollowsItsFourRules() {
    assertThat(RawPutPlanner.plan(Optional.empty(), live, Optional.empty(), 32)).isInstanceOf(Plan.Write.class);
    assertThat(RawPutPlanner.plan(Optional.empty(), live, Optional.of(live.revision()), 32))
        .isEqualTo(new Plan.Reply<>(new NotFound()));
    assertThat(RawPutPlanner.plan(Optional.of(live), live, Optional.of(live.revision()), 32))
        .isInstanceOf(Plan.Write.class);
    assertThat(RawPutPlanner.plan(Optional.of(live), live, Optional.empty(), 32))
        .isEqualTo(new Plan.Reply<>(new Conflict(live)));
  }

  @Test
  void purgeRemovesOnlyTheNamedRevision() {
    assertThat(PurgePlanner.plan(key, Optional.of(live), Optional.of(live.revision()), 0))
        .isInstanceOf(Plan.Remove.class);
    assertThat(PurgePlanner.plan(key, Optional.of(live), Optional.of(live.parent()), 0))
        .isEqualTo(new Plan.Reply<>(new Conflict(live)));
    assertThat(PurgePlanner.plan(key, Optional.empty(), Optional.empty(), 0))
        .isEqualTo(new Plan.Reply<>(Deleted.nothingWritten()));
  }

  @Test
  void ancestorCapBelowOneIsRejected() {
    Assertions.assertThatThrownBy(() -> Ancestry.checkCap(0)).hasMessage("ancestor cap must be at least 1");
  }

  /**
   * A record stored before raw puts were checked may list a "newer" ancestor or carry deletedAt on a
   * live record; it still reads, and what a store writes over it is consistent
   * (docs/design/0118-a-replicated-record-is-consistent.md).
   */
  @Test
  void writesOverAnInconsistentStoredRecordAreConsistent() {
    Record legacy = live.withAncestors(List.of(new Revision(9, ContentHash.ofUtf8("newer")), live.parent()))
        .withDeletion(5L, null);
    assertThat(RawPutPlanner.problem(legacy)).isPresent();
    Record edit = ((Committed) ConsumerPutPlanner.plan(Optional.of(legacy), draft, Optional.of(live.revision()), 700, 32)
        .result()).record();
    assertThat(edit.ancestors()).containsExactly(live.revision(), live.parent());
    assertThat(RawPutPlanner.problem(edit)).isEmpty();
    Record t = ((Plan.Write<?>) DeletePlanner.plan(Optional.of(legacy), Optional.empty(), Optional.empty(), 800, 32))
        .record();
    assertThat(t.ancestors()).containsExactly(live.revision(), live.parent());
    assertThat(RawPutPlanner.problem(t)).isEmpty();
  }
}
