package dev.lethe.store.core.sync;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.MergeClass;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.sync.SyncAction.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides what sync does with one key held raw by stores A and B (docs/design/0203-store-model.md "Sync, reset, collect";
 * docs/design/0203-store-model.md "Ancestry"):
 *
 * <ol>
 *   <li>both absent, or the same revision and the same kind: in sync. The same revision with
 *       different kinds (a format-1 live record whose body is the tombstone domain string against
 *       a tombstone, docs/design/0108-records-that-prove-their-content.md) is diverged, never
 *       converged;
 *   <li>one side absent: copy;
 *   <li>one side's revision is among the other's ancestors: fast-forward the side that is behind;
 *   <li>both tombstones: the higher {@code (counter, hash)} wins on both sides;
 *   <li>exactly one tombstone: diverged (a delete racing an edit), neither side written;
 *   <li>both live: merge by merge class ({@code APPEND_ONLY}: line union; {@code OPAQUE}, differing
 *       kinds or blob bodies: diverged).
 * </ol>
 *
 * A chain longer than the ancestor cap looks like divergence, so it ends in a conflict or a merge,
 * never a silent overwrite. Pure: no I/O, no clock.
 */
public final class SyncPlanner {

  private SyncPlanner() {}

  /** Plans one key. */
  public static SyncAction plan(Optional<Record> a, Optional<Record> b) {
    if (a.isEmpty() && b.isEmpty()) {
      return new SyncAction.InSync();
    }
    if (b.isEmpty()) {
      return new SyncAction.Copy(Side.B, a.get());
    }
    if (a.isEmpty()) {
      return new SyncAction.Copy(Side.A, b.get());
    }
    Record ra = a.get();
    Record rb = b.get();
    if (ra.revision().equals(rb.revision())) {
      if (!ra.kind().equals(rb.kind())) {
        return new SyncAction.Diverged("same revision " + ra.revision() + " but kind " + ra.kind()
            + " on A and " + rb.kind() + " on B" + (ra.isTombstone() || rb.isTombstone()
                ? " (deleted on one side, edited on the other)" : ""));
      }
      return new SyncAction.InSync();
    }
    if (Ancestry.descendsFrom(ra, rb)) {
      return new SyncAction.FastForward(Side.B, ra, rb.revision());
    }
    if (Ancestry.descendsFrom(rb, ra)) {
      return new SyncAction.FastForward(Side.A, rb, ra.revision());
    }
    if (ra.isTombstone() && rb.isTombstone()) {
      return ra.revision().compareTo(rb.revision()) > 0
          ? new SyncAction.FastForward(Side.B, ra, rb.revision())
          : new SyncAction.FastForward(Side.A, rb, ra.revision());
    }
    if (ra.isTombstone() || rb.isTombstone()) {
      Record t = ra.isTombstone() ? ra : rb;
      Record live = ra.isTombstone() ? rb : ra;
      return new SyncAction.Diverged("deleted at " + t.revision() + " on "
          + (ra.isTombstone() ? "A" : "B") + " but edited to " + live.revision() + " on "
          + (ra.isTombstone() ? "B" : "A"));
    }
    return merge(ra, rb);
  }

  private static SyncAction merge(Record ra, Record rb) {
    if (!ra.kind().equals(rb.kind())) {
      return new SyncAction.Diverged(
          "kinds differ (" + ra.kind() + " on A, " + rb.kind() + " on B)");
    }
    if (ra.kind().mergeClass() != MergeClass.APPEND_ONLY) {
      return new SyncAction.Diverged("kind " + ra.kind() + " is opaque and both sides changed ("
          + ra.revision() + " on A, " + rb.revision() + " on B)");
    }
    if (!(ra.body() instanceof Body.Inline ia) || !(rb.body() instanceof Body.Inline ib)) {
      return new SyncAction.Diverged("blob bodies are not merged");
    }
    // Order the sides by revision so both stores compute the same merged record.
    boolean aLow = ra.revision().compareTo(rb.revision()) < 0;
    Record low = aLow ? ra : rb;
    Record high = aLow ? rb : ra;
    Body.Inline lowBody = aLow ? ia : ib;
    Body.Inline highBody = aLow ? ib : ia;
    Body merged = new Body.Inline(LineUnion.merge(lowBody.bytes(), highBody.bytes()));
    Revision rev = RevisionHash.revision(high.revision().counter() + 1, high.kind(), merged);
    List<Revision> ancestors = new ArrayList<>();
    ancestors.add(high.revision());
    ancestors.add(low.revision());
    ancestors.addAll(high.ancestors());
    ancestors.addAll(low.ancestors());
    Meta meta = high.meta().withTimes(min(low.meta().created(), high.meta().created()),
        max(low.meta().updated(), high.meta().updated()));
    List<dev.lethe.store.core.RecordKey> links = new ArrayList<>(high.links());
    low.links().stream().filter(l -> !links.contains(l)).forEach(links::add);
    Record out = new Record(high.key(), high.kind(), rev, high.revision(),
        Ancestry.normalize(ancestors, rev, Integer.MAX_VALUE), merged, meta, null, null, links);
    return new SyncAction.Merge(out, ra.revision(), rb.revision());
  }

  private static Long min(Long x, Long y) {
    return x == null ? y : y == null ? x : Long.valueOf(Math.min(x, y));
  }

  private static Long max(Long x, Long y) {
    return x == null ? y : y == null ? x : Long.valueOf(Math.max(x, y));
  }
}
