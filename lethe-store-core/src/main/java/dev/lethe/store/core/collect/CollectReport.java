package dev.lethe.store.core.collect;

import dev.lethe.store.core.RecordKey;
import java.util.List;
import java.util.Map;

/**
 * What a collect did.
 *
 * @param purged tombstones physically removed (each appended to the purge log first)
 * @param unstamped tombstones without {@code deletedAt}, kept
 * @param tooYoung tombstones younger than the horizon or future-dated, kept
 * @param conflicts keys recreated between the read and the purge; the recreation is intact and
 *     there is nothing to retry
 * @param heldBack per known peer id, how many tombstones old enough to collect it has not synced
 *     past (docs/design/0153-collect-gating.md); ordered by id, never null
 * @param skewed tombstones kept because a clock looks wrong about their age, with why; never null
 * @param refused whether the collect purged nothing because peers held tombstones back
 */
public record CollectReport(int purged, int unstamped, int tooYoung, List<RecordKey> conflicts,
    Map<String, Integer> heldBack, Map<RecordKey, String> skewed, boolean refused) {
  public CollectReport {
    conflicts = List.copyOf(conflicts);
    heldBack = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(heldBack));
    skewed = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(skewed));
  }

  /** A report of a collect that knew no peers and saw no skew. */
  public CollectReport(int purged, int unstamped, int tooYoung, List<RecordKey> conflicts) {
    this(purged, unstamped, tooYoung, conflicts, Map.of(), Map.of(), false);
  }
}
