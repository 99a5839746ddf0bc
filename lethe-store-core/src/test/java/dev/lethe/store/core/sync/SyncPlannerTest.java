package dev.lethe.store.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.tombstone.Tombstones;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SyncPlannerTest {

  private final RecordKey key = new RecordKey("n", "c", "i");

  private Record rec(Kind kind, long counter, String text, Revision... ancestors) {
    Body b = Body.Inline.text(text);
    return new Record(key, kind, new Revision(counter, b.contentHash()),
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
  }

  @Test
  void lineUnionKeepsFirstSideOrderAndEachLineOnce() {
    byte[] m = LineUnion.merge("a\nb\n".getBytes(StandardCharsets.UTF_8), "b\nc".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(m, StandardCharsets.UTF_8)).isEqualTo("a\nb\nc\n");
    assertThat(ContentHash.of(LineUnion.merge(new byte[0], new byte[0]))).isEqualTo(ContentHash.of(new byte[0]));
  }
}
