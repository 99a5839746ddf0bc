package dev.lethe.store.core.planner;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.tombstone.Tombstones;
import java.util.Optional;

/**
 * Decides a consumer delete (docs/design/0203-store-model.md "Consumer writes"): a live record becomes
 * a tombstone unless the expected revision is stale; an absent key or a tombstone writes nothing.
 * An absent key gets no tombstone because there is no revision a tombstone could descend from.
 */
public final class DeletePlanner {

  private DeletePlanner() {}

  /**
   * Plans a delete.
   *
   * @param stored what the key holds now (raw), or empty
   * @param expected the revision the caller read, or empty for an unconditional delete
   * @param deleter who deletes, or empty to keep the record's last author
   * @param nowMs the store's clock, ms since the epoch, recorded as {@code deletedAt}
   * @param cap the store's ancestor cap
   */
  public static Plan<DeleteResult> plan(Optional<Record> stored, Optional<Revision> expected,
      Optional<String> deleter, long nowMs, int cap) {
    if (stored.isEmpty() || stored.get().isTombstone()) {
      return new Plan.Reply<>(Deleted.nothingWritten());
    }
    Record live = stored.get();
    if (expected.isPresent() && !expected.get().equals(live.revision())) {
      return new Plan.Reply<>(new Conflict(live));
    }
    Record tombstone = Tombstones.of(live, deleter, nowMs, cap);
    return new Plan.Write<>(tombstone, new Deleted(Optional.of(tombstone)));
  }
}
