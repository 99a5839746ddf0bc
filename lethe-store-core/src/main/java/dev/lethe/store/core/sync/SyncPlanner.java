package dev.lethe.store.core.sync;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.MergeClass;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.lines.Lines;
import dev.lethe.store.core.sync.SyncAction.Side;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what sync does with one key held raw by stores A and B (docs/design/0203-store-model.md "Sync, reset, collect";
 * docs/design/0203-store-model.md "Ancestry"):
 *
 * <ol>
 *   <li>both absent, or the same revision, kind and metadata: in sync. The same revision with
 *       different author, origin, labels or links (records of format 1 or 2, whose revision does
 *       not cover them: docs/design/0155-a-revision-covers-what-sync-compares.md) is diverged. The
 *       same revision with different kinds (a format-1 live record whose body is the tombstone domain string against
 *       a tombstone, docs/design/0108-records-that-prove-their-content.md) is diverged, never
 *       converged;
 *   <li>one side absent: copy;
 *   <li>one side's revision is among the other's ancestors: fast-forward the side that is behind;
 *   <li>both tombstones: the higher {@code (counter, hash)} wins on both sides;
 *   <li>exactly one tombstone: diverged (a delete racing an edit), neither side written;
 *   <li>both live: merge by merge class ({@code APPEND_ONLY}: three-way merge against the newest
 *       common ancestor's lines, labels and links, docs/design/0156-three-way-line-merge.md;
 *       diverged when neither side keeps that ancestor's snapshot, when they share no ancestor
 *       (unless both are first versions), or when a label changed differently on both sides;
 *       {@code OPAQUE}, differing kinds or blob bodies: diverged).
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
      // two tombstones of one revision are one delete, whoever stamped it (docs/design/0155)
      List<String> differ = ra.isTombstone() && rb.isTombstone() ? List.of() : RevisionHash.metadataDifferences(ra, rb);
      if (!differ.isEmpty()) {
        return new SyncAction.Diverged("same revision " + ra.revision() + " but "
            + String.join(", ", differ) + " differ (format " + ra.format() + " and " + rb.format()
            + " revisions do not cover them); write the record on one side to settle it");
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
    Optional<Lines.Snapshot> base = base(low, high);
    if (base.isEmpty()) {
      return new SyncAction.Diverged(noBase(low, high));
    }
    Lines.Snapshot b = base.get();
    Body merged = new Body.Inline(Lines.join(Lines.merge(b.lines(),
        Lines.split(((Body.Inline) low.body()).bytes()), Lines.split(((Body.Inline) high.body()).bytes()))));
    Optional<Map<String, String>> labels =
        Lines.mergeLabels(b.labels(), low.meta().labels(), high.meta().labels());
    if (labels.isEmpty()) {
      return new SyncAction.Diverged("a label of kind " + ra.kind()
          + " changed differently on both sides (" + ra.revision() + " on A, " + rb.revision() + " on B)");
    }
    List<RecordKey> links =
        Lines.merge(new HashSet<>(b.links()), low.links(), high.links());
    Meta hm = high.meta();
    Meta meta = new Meta(hm.author(), hm.origin(), min(low.meta().created(), hm.created()),
        max(low.meta().updated(), hm.updated()), labels.get());
    Revision rev = RevisionHash.revision(high.revision().counter() + 1, high.kind(), merged, meta, links);
    List<Revision> ancestors = new ArrayList<>();
    ancestors.add(high.revision());
    ancestors.add(low.revision());
    ancestors.addAll(high.ancestors());
    ancestors.addAll(low.ancestors());
    List<Revision> normalized = Ancestry.normalize(ancestors, rev, Integer.MAX_VALUE);
    Record out = new Record(high.key(), high.kind(), rev, high.revision(), normalized, merged, meta,
        null, null, links, FormatVersion.CURRENT,
        Lines.after(high.kind(), merged, normalized, List.of(high, low)));
    return new SyncAction.Merge(out, ra.revision(), rb.revision());
  }

  /**
   * The merge base: the snapshot of the newest revision both sides descend from, as either side
   * keeps it; nothing for two first versions (independent creations); empty when it is unknown.
   */
  private static Optional<Lines.Snapshot> base(Record low, Record high) {
    if (low.ancestors().isEmpty() && high.ancestors().isEmpty()
        && low.parent() == null && high.parent() == null) {
      return Optional.of(Lines.Snapshot.NONE);
    }
    Revision common = null;
    for (Revision r : low.ancestors()) {
      if (high.ancestors().contains(r) && (common == null || r.compareTo(common) > 0)) {
        common = r;
      }
    }
    if (common == null) {
      return Optional.empty();
    }
    Optional<Lines.Snapshot> s = Lines.baseOf(high, common);
    return s.isPresent() ? s : Lines.baseOf(low, common);
  }

  private static String noBase(Record low, Record high) {
    boolean shared = low.ancestors().stream().anyMatch(high.ancestors()::contains);
    return shared
        ? "both sides changed kind " + high.kind() + " (" + low.revision() + ", " + high.revision()
            + ") and neither keeps the lines of their common ancestor (a record written before"
            + " format 3, or beyond the ancestor cap): not merged, so no removed line comes back"
        : "both sides changed kind " + high.kind() + " (" + low.revision() + ", " + high.revision()
            + ") and share no ancestor within the ancestor cap: not merged, so no removed line comes back";
  }

  private static Long min(Long x, Long y) {
    return x == null ? y : y == null ? x : Long.valueOf(Math.min(x, y));
  }

  private static Long max(Long x, Long y) {
    return x == null ? y : y == null ? x : Long.valueOf(Math.max(x, y));
  }
}
