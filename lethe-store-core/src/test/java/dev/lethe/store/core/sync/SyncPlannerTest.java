package dev.lethe.store.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.planner.ConsumerPutPlanner;
import dev.lethe.store.core.planner.Plan;
import dev.lethe.store.core.tombstone.Tombstones;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SyncPlannerTest {

  private final RecordKey key = new RecordKey("n", "c", "i");

  private Record rec(Kind kind, long counter, String text, Revision... ancestors) {
    Body b = Body.Inline.text(text);
    return new Record(key, kind, RevisionHash.revision(counter, kind, b),
        ancestors.length == 0 ? null : ancestors[0], List.of(ancestors), b, Meta.EMPTY, null, null, List.of());
  }

  @Test
  void decisionsFollowAncestryThenKindRules() {
    Record base = rec(Kind.DOCUMENT, 1, "a");
    Record ahead = rec(Kind.DOCUMENT, 2, "b", base.revision());
    Record other = rec(Kind.DOCUMENT, 2, "c", base.revision());
    Record t = Tombstones.of(base, Optional.empty(), 1, 32);
    assertThat(SyncPlanner.plan(Optional.of(base), Optional.of(base))).isInstanceOf(SyncAction.InSync.class);
    assertThat(SyncPlanner.plan(Optional.of(base), Optional.empty()))
        .isEqualTo(new SyncAction.Copy(SyncAction.Side.B, base));
    assertThat(SyncPlanner.plan(Optional.of(base), Optional.of(ahead)))
        .isEqualTo(new SyncAction.FastForward(SyncAction.Side.A, ahead, base.revision()));
    assertThat(SyncPlanner.plan(Optional.of(t), Optional.of(base)))
        .isEqualTo(new SyncAction.FastForward(SyncAction.Side.B, t, base.revision()));
    assertThat(SyncPlanner.plan(Optional.of(t), Optional.of(other))).isInstanceOf(SyncAction.Diverged.class);
    assertThat(SyncPlanner.plan(Optional.of(ahead), Optional.of(other))).isInstanceOf(SyncAction.Diverged.class);
  }

  /** A version written by a consumer put over {@code over} (or a first version), as a store stamps it. */
  private Record put(Record over, Kind kind, String text, Meta meta, int cap) {
    Record draft = Record.draft(key, kind, Body.Inline.text(text), meta);
    Plan<PutResult> plan = ConsumerPutPlanner.plan(Optional.ofNullable(over), draft,
        over == null ? Optional.empty() : Optional.of(over.revision()), 1000, cap);
    return ((Plan.Write<PutResult>) plan).record();
  }

  private Record put(Record over, String text) {
    return put(over, Kind.LINES, text, Meta.EMPTY, 32);
  }

  private static String text(Record r) {
    return ((Body.Inline) r.body()).text();
  }

  @Test
  void appendOnlyMergeIsTheSameWhicheverSideIsA() {
    Record base = put(null, Kind.LOG, "x\n", Meta.EMPTY, 32);
    Record a = put(base, Kind.LOG, "x\ny\n", Meta.EMPTY, 32);
    Record b = put(put(base, Kind.LOG, "x\nz\n", Meta.EMPTY, 32), Kind.LOG, "x\nz\nw", Meta.EMPTY, 32);
    SyncAction.Merge ab = (SyncAction.Merge) SyncPlanner.plan(Optional.of(a), Optional.of(b));
    SyncAction.Merge ba = (SyncAction.Merge) SyncPlanner.plan(Optional.of(b), Optional.of(a));
    assertThat(ab.merged()).isEqualTo(ba.merged());
    assertThat(text(ab.merged())).isEqualTo("x\ny\nz\nw\n");
    assertThat(ab.merged().revision().counter()).isEqualTo(4);
    assertThat(ab.merged().ancestors()).contains(a.revision(), b.revision(), base.revision());
    assertThat(RevisionHash.problem(ab.merged())).isEmpty();
  }

  @Test
  void aLineOneSideRemovedStaysRemovedWhileTheOtherSideAppends() {
    Record base = put(null, "l1\nl2\nl3\n");
    Record a = put(base, "l1\nl3\n");
    Record b = put(base, "l1\nl2\nl3\nl4\n");
    for (SyncAction act : List.of(SyncPlanner.plan(Optional.of(a), Optional.of(b)),
        SyncPlanner.plan(Optional.of(b), Optional.of(a)))) {
      assertThat(act).isInstanceOfSatisfying(SyncAction.Merge.class,
          m -> assertThat(text(m.merged())).isEqualTo("l1\nl3\nl4\n"));
    }
  }

  @Test
  void withoutTheCommonAncestorsLinesTheMergeIsAConflictNotAUnion() {
    // Format-2 records (written before bases existed) keep no ancestor lines.
    Record base = rec(Kind.LINES, 1, "l1\nl2\nl3\n");
    Record a = v2(2, "l1\nl3\n", base.revision());
    Record b = v2(2, "l1\nl2\nl3\nl4\n", base.revision());
    assertThat(SyncPlanner.plan(Optional.of(a), Optional.of(b))).isInstanceOfSatisfying(SyncAction.Diverged.class,
        d -> assertThat(d.reason()).contains("neither keeps the lines of their common ancestor"));
    // No shared ancestor at all (a chain cut by the cap): a conflict too.
    Record c = put(null, "l1\n");
    Record cut = c;
    for (int i = 0; i < 5; i++) {
      cut = put(cut, Kind.LINES, text(cut) + "m" + i + "\n", Meta.EMPTY, 3);
    }
    Record other = put(c, Kind.LINES, "l1\nz\n", Meta.EMPTY, 3);
    assertThat(SyncPlanner.plan(Optional.of(cut), Optional.of(other))).isInstanceOfSatisfying(SyncAction.Diverged.class,
        d -> assertThat(d.reason()).contains("share no ancestor"));
    // Two independent first versions have nothing in common to remove: their union.
    Record x = put(null, "a\nb\n");
    Record y = put(null, "b\nc\n");
    assertThat(SyncPlanner.plan(Optional.of(x), Optional.of(y))).isInstanceOfSatisfying(SyncAction.Merge.class,
        m -> assertThat(text(m.merged()).lines()).containsExactlyInAnyOrder("a", "b", "c"));
  }

  private Record v2(long counter, String text, Revision parent) {
    Body b = Body.Inline.text(text);
    return new Record(key, Kind.LINES, new Revision(counter, RevisionHash.of(FormatVersion.V2, Kind.LINES, b)),
        parent, List.of(parent), b, Meta.EMPTY, null, null, List.of(), FormatVersion.V2);
  }

  @Test
  void labelsAndLinksMergeThreeWayAndARemovedOneStaysRemoved() {
    RecordKey k1 = new RecordKey("n", "c", "k1");
    RecordKey k2 = new RecordKey("n", "c", "k2");
    Record base = put(null, Kind.LINES, "x\n", new Meta(null, null, null, null, Map.of("keep", "1", "drop", "1")), 32);
    base = ConsumerPutPlannerLinks.withLinks(base, List.of(k1, k2));
    Record a = ConsumerPutPlannerLinks.withLinks(
        put(base, Kind.LINES, "x\na\n", new Meta(null, null, null, null, Map.of("keep", "1")), 32), List.of(k1));
    Record b = ConsumerPutPlannerLinks.withLinks(
        put(base, Kind.LINES, "x\nb\n", new Meta(null, null, null, null, Map.of("keep", "1", "drop", "1", "new", "2")), 32),
        List.of(k1, k2));
    SyncAction.Merge m = (SyncAction.Merge) SyncPlanner.plan(Optional.of(a), Optional.of(b));
    assertThat(m.merged().meta().labels()).containsExactlyInAnyOrderEntriesOf(Map.of("keep", "1", "new", "2"));
    assertThat(m.merged().links()).containsExactly(k1);
    // the same label set differently on both sides: a conflict
    Record c = put(base, Kind.LINES, "x\nc\n", new Meta(null, null, null, null, Map.of("keep", "A", "drop", "1")), 32);
    Record d = put(base, Kind.LINES, "x\nd\n", new Meta(null, null, null, null, Map.of("keep", "B", "drop", "1")), 32);
    assertThat(SyncPlanner.plan(Optional.of(c), Optional.of(d))).isInstanceOf(SyncAction.Diverged.class);
  }

  @Test
  void recordsDifferingOnlyInMetadataNeverLookInSync() {
    Record base = put(null, Kind.DOCUMENT, "v\n", Meta.EMPTY, 32);
    Record a = put(base, Kind.DOCUMENT, "w\n", new Meta("alice", null, null, null, Map.of("l", "1")), 32);
    Record b = put(base, Kind.DOCUMENT, "w\n", new Meta("alice", null, null, null, Map.of("l", "2")), 32);
    Record c = put(base, Kind.DOCUMENT, "w\n", new Meta("bob", null, null, null, Map.of("l", "1")), 32);
    assertThat(a.revision()).isNotEqualTo(b.revision()).isNotEqualTo(c.revision());
    assertThat(SyncPlanner.plan(Optional.of(a), Optional.of(b))).isInstanceOf(SyncAction.Diverged.class);
    // Format-2 records share a revision whatever their metadata: sync compares it.
    Body w = Body.Inline.text("w\n");
    Revision shared = new Revision(2, RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, w));
    Record oldA = new Record(key, Kind.DOCUMENT, shared, null, List.of(), w, new Meta("alice", null, 1L, 1L, Map.of("l", "1")),
        null, null, List.of(), FormatVersion.V2);
    Record oldB = oldA.withMeta(new Meta("alice", null, 5L, 9L, Map.of("l", "2")));
    assertThat(SyncPlanner.plan(Optional.of(oldA), Optional.of(oldB))).isInstanceOfSatisfying(SyncAction.Diverged.class,
        d -> assertThat(d.reason()).contains("labels differ"));
    // times alone are not compared
    assertThat(SyncPlanner.plan(Optional.of(oldA), Optional.of(oldA.withMeta(oldA.meta().withTimes(7L, 8L)))))
        .isInstanceOf(SyncAction.InSync.class);
  }

  @Test
  void twoStoresThatDeletedOneRevisionEachUnderItsOwnNameAreInSync() {
    // a tombstone's revision follows from the revision it deleted; who stamped it is not compared
    Record base = put(null, Kind.DOCUMENT, "v\n", Meta.byAuthor("carol"), 32);
    Record byAlice = Tombstones.of(base, Optional.of("alice"), 1, 32);
    Record byBob = Tombstones.of(base, Optional.of("bob"), 2, 32);
    assertThat(byAlice.revision()).isEqualTo(byBob.revision());
    assertThat(SyncPlanner.plan(Optional.of(byAlice), Optional.of(byBob))).isInstanceOf(SyncAction.InSync.class);
    assertThat(SyncPlanner.plan(Optional.of(byBob), Optional.of(byAlice))).isInstanceOf(SyncAction.InSync.class);
  }

  @Test
  void theSameRevisionWithDifferentKindsIsDivergedNeverInSync() {
    // A format-1 live record whose body is the tombstone domain string has a tombstone's hash.
    Record base = rec(Kind.DOCUMENT, 1, "a");
    Record t = Tombstones.of(base, Optional.empty(), 1, 32);
    Body domain = Body.Inline.text(Tombstones.DOMAIN);
    Record v1Edit = new Record(key, Kind.DOCUMENT, new Revision(2, RevisionHash.of(FormatVersion.V1, Kind.DOCUMENT, domain)),
        base.revision(), List.of(base.revision()), domain, Meta.EMPTY, null, null, List.of(), FormatVersion.V1);
    assertThat(v1Edit.revision()).isEqualTo(t.revision());
    assertThat(RevisionHash.problem(v1Edit)).isEmpty();
    assertThat(SyncPlanner.plan(Optional.of(t), Optional.of(v1Edit)))
        .isInstanceOfSatisfying(SyncAction.Diverged.class, d -> assertThat(d.reason())
            .contains("same revision").contains("kind tombstone on A and document on B"));
    assertThat(SyncPlanner.plan(Optional.of(v1Edit), Optional.of(t))).isInstanceOf(SyncAction.Diverged.class);
    // two live kinds at one format-1 revision (the same content) are diverged too
    Record asLog = new Record(key, Kind.LOG, v1Edit.revision(), base.revision(), List.of(base.revision()), domain,
        Meta.EMPTY, null, null, List.of(), FormatVersion.V1);
    assertThat(SyncPlanner.plan(Optional.of(asLog), Optional.of(v1Edit))).isInstanceOf(SyncAction.Diverged.class);
  }

  /** Links are stamped by a put from the draft; these tests set them on a draft-built record. */
  private static final class ConsumerPutPlannerLinks {
    static Record withLinks(Record r, List<RecordKey> links) {
      Record linked = new Record(r.key(), r.kind(), r.revision(), r.parent(), r.ancestors(), r.body(), r.meta(),
          r.deletedAt(), r.deletedBlob(), links, r.format(), r.bases());
      return RevisionHash.restamp(linked);
    }
  }
}
