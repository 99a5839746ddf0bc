package dev.lethe.store.core.planner;

import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.ancestry.Ancestry;
import java.util.Optional;

/**
 * Decides a replication {@code putRaw} (docs/design/0203-store-model.md "Replication writes"). Four rules: nothing stored and no expected revision writes; nothing stored but an
 * expected revision is {@code NotFound}; an expected revision equal to the stored one (tombstone
 * or not) writes verbatim; anything else is a {@code Conflict} carrying the stored record. A copy
 * racing a delete therefore conflicts instead of turning into a recreation.
 */
public final class RawPutPlanner {

  private RawPutPlanner() {}

  /**
   * Plans a raw put. The written record is {@code record} with its ancestors normalised (deduped,
   * own revision removed, newest first, capped); nothing else is changed.
   */
  public static Plan<PutResult> plan(
      Optional<Record> stored, Record record, Optional<Revision> expected, int cap) {
    boolean write;
    if (stored.isEmpty()) {
      if (expected.isPresent()) {
        return new Plan.Reply<>(new NotFound());
      }
      write = true;
    } else {
      write = expected.isPresent() && expected.get().equals(stored.get().revision());
    }
    if (!write) {
      return new Plan.Reply<>(new Conflict(stored.get()));
    }
    Record normalized =
        record.withAncestors(Ancestry.normalize(record.ancestors(), record.revision(), cap));
    return new Plan.Write<>(normalized, new Committed(normalized));
  }
}
