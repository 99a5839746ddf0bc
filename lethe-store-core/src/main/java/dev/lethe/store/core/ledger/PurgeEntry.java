package dev.lethe.store.core.ledger;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.util.List;
import java.util.Objects;

/**
 * One line of a store's purge log (docs/design/0151-purge-log.md): a tombstone this store removed,
 * without its body or meta.
 *
 * @param key the key the tombstone was at, never null
 * @param tombstone the removed tombstone's revision, never null
 * @param deleted the live revision the tombstone deleted (its parent), never null
 * @param history the deleted revision's own ancestors, newest first, as the tombstone kept them
 *     (at most the store's ancestor cap), never null
 * @param deletedAt the tombstone's {@code deletedAt}, ms since the epoch, or null when unstamped
 * @param purgedAt when this store removed it, ms since the epoch on the store's own clock
 */
public record PurgeEntry(RecordKey key, Revision tombstone, Revision deleted, List<Revision> history,
    Long deletedAt, long purgedAt) {

  public PurgeEntry {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(tombstone, "tombstone");
    Objects.requireNonNull(deleted, "deleted");
    history = List.copyOf(history);
  }

  /**
   * The entry for removing {@code tombstone} at {@code nowMs}.
   *
   * @throws IllegalArgumentException if the record is not a tombstone or has no parent
   */
  public static PurgeEntry of(Record tombstone, long nowMs) {
    if (!tombstone.isTombstone() || tombstone.parent() == null) {
      throw new IllegalArgumentException("Not a tombstone with a parent: " + tombstone.key());
    }
    List<Revision> anc = tombstone.ancestors();
    // the tombstone's ancestors are the deleted revision, then the deleted revision's ancestors
    List<Revision> history = !anc.isEmpty() && anc.get(0).equals(tombstone.parent()) ? anc.subList(1, anc.size()) : anc;
    return new PurgeEntry(tombstone.key(), tombstone.revision(), tombstone.parent(), history,
        tombstone.deletedAt(), nowMs);
  }
}
