package dev.lethe.store.core.planner;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.util.Optional;

/**
 * Decides a {@code purge}, the only physical removal in a store: it removes exactly the revision
 * it names. An absent key is a no-op; an empty expected revision over a stored record conflicts,
 * so no purge ever removes a record it did not read.
 */
public final class PurgePlanner {

  private PurgePlanner() {}

  /** Plans a purge of {@code key}. */
  public static Plan<DeleteResult> plan(
      RecordKey key, Optional<Record> stored, Optional<Revision> expected) {
    if (stored.isEmpty()) {
      return new Plan.Reply<>(Deleted.nothingWritten());
    }
    if (expected.isPresent() && expected.get().equals(stored.get().revision())) {
      return new Plan.Remove<>(key, Deleted.nothingWritten());
    }
    return new Plan.Reply<>(new Conflict(stored.get()));
  }
}
