package dev.lethe.store.core.sync;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.sync.SyncAction.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides a key one side does not hold while the other offers a live record, from the lacking
 * side's purge log (docs/design/0152-sync-restores-collected-tombstones.md): the removed tombstone
 * is rebuilt from its log entry and the key is planned by {@link SyncPlanner} exactly as if it
 * were still stored. Pure: no I/O, no clock.
 */
public final class RestorePlanner {

  /** What to do with the key. */
  public sealed interface Restoration {}

  /** Plan the key as usual: no log entry, or the live record is a recreation made after the delete. */
  public record Usual() implements Restoration {}

  /**
   * The offer is the deleted revision or older: write {@code tombstone} back on {@code to} (which
   * holds nothing) and over {@code peerRevision} on the other side.
   */
  public record Restore(Side to, Record tombstone, Revision peerRevision) implements Restoration {}

  /** The offer descends from the deleted revision by an edit, or diverged from it: a conflict. */
  public record Refuse(String reason) implements Restoration {}

  private RestorePlanner() {}

  /**
   * Plans one key.
   *
   * @param a what A holds raw, or empty
   * @param b what B holds raw, or empty
   * @param purgedOnA A's newest purge-log entry for the key, or empty
   * @param purgedOnB B's newest purge-log entry for the key, or empty
   */
  public static Restoration plan(Optional<Record> a, Optional<Record> b,
      Optional<PurgeEntry> purgedOnA, Optional<PurgeEntry> purgedOnB) {
    if (a.isEmpty() && b.isPresent() && !b.get().isTombstone() && purgedOnA.isPresent()) {
      return judge(Side.A, purgedOnA.get(), b.get());
    }
    if (b.isEmpty() && a.isPresent() && !a.get().isTombstone() && purgedOnB.isPresent()) {
      return judge(Side.B, purgedOnB.get(), a.get());
    }
    return new Usual();
  }

  private static Restoration judge(Side lacking, PurgeEntry entry, Record offered) {
    Record tombstone = rebuild(entry, offered);
    SyncAction action = SyncPlanner.plan(Optional.of(tombstone), Optional.of(offered));
    if (action instanceof SyncAction.FastForward f && f.to() == Side.B) {
      return new Restore(lacking, tombstone, offered.revision());
    }
    if (action instanceof SyncAction.FastForward) {
      return new Usual(); // the offer descends from the tombstone: a recreation
    }
    String reason = action instanceof SyncAction.Diverged d ? d.reason() : "unexpected " + action;
    return new Refuse("deleted at " + entry.tombstone() + " and collected on " + lacking + " but edited to "
        + offered.revision() + " on " + (lacking == Side.A ? "B" : "A") + " (" + reason.replace(" on A", " here").replace(" on B", " there") + ")");
  }

  /**
   * The tombstone the entry removed, rebuilt: its revision, parent and ancestors from the log, its
   * meta and links from the offered record (the log keeps no meta), its blob pin when the offer is
   * the deleted revision itself.
   */
  static Record rebuild(PurgeEntry entry, Record offered) {
    List<Revision> ancestors = new ArrayList<>();
    ancestors.add(entry.deleted());
    ancestors.addAll(entry.history());
    String pinned = offered.revision().equals(entry.deleted()) && offered.body() instanceof Body.Blob blob
        ? blob.hash() : null;
    return new Record(entry.key(), Kind.TOMBSTONE, entry.tombstone(), entry.deleted(),
        Ancestry.normalize(ancestors, entry.tombstone(), Integer.MAX_VALUE), Body.EMPTY,
        offered.meta(), entry.deletedAt(), pinned, offered.links());
  }
}
