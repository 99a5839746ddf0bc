package dev.lethe.store.core.collect;

import dev.lethe.store.core.RecordKey;
import java.util.List;

/**
 * What a collect did.
 *
 * @param purged tombstones physically removed
 * @param unstamped tombstones without {@code deletedAt}, kept
 * @param tooYoung tombstones younger than the horizon or future-dated, kept
 * @param conflicts keys recreated between the read and the purge; the recreation is intact and
 *     there is nothing to retry
 */
public record CollectReport(int purged, int unstamped, int tooYoung, List<RecordKey> conflicts) {
  public CollectReport {
    conflicts = List.copyOf(conflicts);
  }
}
