package dev.lethe.store.git;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.sync.RestorePlanner;
import dev.lethe.store.core.sync.SyncAction;
import dev.lethe.store.core.sync.SyncPlanner;
import java.util.Optional;

/**
 * Decides what a pull does with one record changed on both sides since the merge base
 * (docs/design/0126-git-pull-and-push.md): the kind rules of sync ({@link SyncPlanner}) with the
 * local side as A and the fetched side as B. Where the local side holds nothing and its purge log
 * has an entry for the key, {@link RestorePlanner} decides first, as in sync
 * (docs/design/0152-sync-restores-collected-tombstones.md): a collected delete never comes back
 * through a pull. Pure: no I/O.
 */
public final class PullPlanner {

  private PullPlanner() {}

  /** What the merge commit holds at one path. */
  public sealed interface Decision {}

  /** The local record stays (equal revisions, the local one newer, or a higher local tombstone). */
  public record KeepOurs() implements Decision {}

  /** The fetched record replaces the local one (it descends from it, or is the higher tombstone). */
  public record TakeTheirs(Record record) implements Decision {}

  /** Both sides' records merged by their kind's merge class. */
  public record Merged(Record record) implements Decision {}

  /** The local side collected this key's tombstone and the remote offers the deleted revision or an older one: the tombstone is written back. */
  public record RestoreTombstone(Record tombstone) implements Decision {}

  /** No rule reconciles the sides: the local record stays and the key is reported. */
  public record Conflict(String reason) implements Decision {}

  /**
   * Plans one key.
   *
   * @param ours the local record at the path, empty when the local side removed it (a purge)
   * @param theirs the fetched record, empty when the fetched side removed it
   */
  public static Decision plan(Optional<Record> ours, Optional<Record> theirs) {
    return plan(ours, theirs, Optional.empty());
  }

  /**
   * Plans one key with the local purge log's newest entry for it.
   *
   * @param ours the local record at the path, empty when the local side removed it (a purge)
   * @param theirs the fetched record, empty when the fetched side removed it
   * @param purgedHere the local purge log's newest entry for the key, or empty
   */
  public static Decision plan(Optional<Record> ours, Optional<Record> theirs, Optional<PurgeEntry> purgedHere) {
    RestorePlanner.Restoration restoration = RestorePlanner.plan(ours, theirs, purgedHere, Optional.empty());
    if (restoration instanceof RestorePlanner.Restore r) {
      return new RestoreTombstone(r.tombstone());
    }
    if (restoration instanceof RestorePlanner.Refuse r) {
      return new Conflict(r.reason().replace("collected on A", "collected here").replace(" on B (", " on the remote ("));
    }
    SyncAction action = SyncPlanner.plan(ours, theirs);
    if (action instanceof SyncAction.Copy c) {
      return c.to() == SyncAction.Side.A ? new TakeTheirs(c.record()) : new KeepOurs();
    }
    if (action instanceof SyncAction.FastForward f) {
      return f.to() == SyncAction.Side.A ? new TakeTheirs(f.record()) : new KeepOurs();
    }
    if (action instanceof SyncAction.Merge m) {
      return new Merged(m.merged());
    }
    if (action instanceof SyncAction.Diverged d) {
      return new Conflict(d.reason().replace(" on A", " here").replace(" on B", " on the remote"));
    }
    return new KeepOurs();
  }
}
