package dev.lethe.store.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.tombstone.Tombstones;
import java.nio.charset.StandardCharsets;
import java.util.List;
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

  @Test
  void appendOnlyMergeIsTheSameWhicheverSideIsA() {
    Record base = rec(Kind.LOG, 1, "x\n");
    Record a = rec(Kind.LOG, 2, "x\ny\n", base.revision());
    Record b = rec(Kind.LOG, 3, "x\nz\nw", base.revision());
    SyncAction.Merge ab = (SyncAction.Merge) SyncPlanner.plan(Optional.of(a), Optional.of(b));
    SyncAction.Merge ba = (SyncAction.Merge) SyncPlanner.plan(Optional.of(b), Optional.of(a));
    assertThat(ab.merged()).isEqualTo(ba.merged());
    assertThat(((Body.Inline) ab.merged().body()).text()).isEqualTo("x\ny\nz\nw\n");
    assertThat(ab.merged().revision().counter()).isEqualTo(4);
    assertThat(ab.merged().ancestors()).contains(a.revision(), b.revision(), base.revision());
    assertThat(RevisionHash.problem(ab.merged())).isEmpty();
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

  @Test
  void lineUnionKeepsFirstSideOrderAndEachLineOnce() {
    byte[] m = LineUnion.merge("a\nb\n".getBytes(StandardCharsets.UTF_8), "b\nc".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(m, StandardCharsets.UTF_8)).isEqualTo("a\nb\nc\n");
    assertThat(ContentHash.of(LineUnion.merge(new byte[0], new byte[0]))).isEqualTo(ContentHash.of(new byte[0]));
  }
}
