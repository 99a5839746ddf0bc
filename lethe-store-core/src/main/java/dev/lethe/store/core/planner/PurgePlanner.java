package dev.lethe.store.core.planner;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.ledger.PurgeEntry;
import java.util.Optional;

/**
 * Decides a {@code purge}, the only physical removal in a store: it removes exactly the revision
 * it names. An absent key is a no-op; an empty expected revision over a stored record conflicts,
 * so no purge ever removes a record it did not read.
 */
public final class PurgePlanner {

  private PurgePlanner() {}

  /**
   * Plans a purge of {@code key}. Removing a tombstone with a parent carries its purge-log entry
   * (docs/design/0151-purge-log.md).
   *
   * @param nowMs the store's clock, stamped on the entry
   */
  public static Plan<DeleteResult> plan(
      RecordKey key, Optional<Record> stored, Optional<Revision> expected, long nowMs) {
    if (stored.isEmpty()) {
      return new Plan.Reply<>(Deleted.nothingWritten());
    }
    if (expected.isPresent() && expected.get().equals(stored.get().revision())) {
      Record r = stored.get();
      PurgeEntry logged = r.isTombstone() && r.parent() != null ? PurgeEntry.of(r, nowMs) : null;
      return new Plan.Remove<>(key, logged, Deleted.nothingWritten());
    }
    return new Plan.Reply<>(new Conflict(stored.get()));
  }
}
