package dev.lethe.store.core.sync;

import java.util.List;

/**
 * What a sync did.
 *
 * @param copied keys held by one side only and copied to the other
 * @param fastForwarded keys where the side that was behind (or held the lower of two tombstones)
 *     was overwritten
 * @param merged keys merged three-way (append-only kinds) and written to both sides
 * @param conflicts keys left diverged, neither side written
 * @param corrupt keys where a side holds a corrupt record, neither side written, in key order
 * @param converged whether both sides now hold the same revision for every key under the prefix
 *     (never with conflicts or corrupt records)
 * @param restored keys where one side had collected a delete and the other offered the deleted
 *     revision or an older one: the tombstone was written back on both sides
 *     (docs/design/0152-sync-restores-collected-tombstones.md)
 */
public record SyncReport(int copied, int fastForwarded, int merged, List<SyncConflict> conflicts,
    List<SyncCorrupt> corrupt, boolean converged, int restored) {
  public SyncReport {
    conflicts = List.copyOf(conflicts);
    corrupt = List.copyOf(corrupt);
  }

  /** A report with nothing restored. */
  public SyncReport(int copied, int fastForwarded, int merged, List<SyncConflict> conflicts,
      List<SyncCorrupt> corrupt, boolean converged) {
    this(copied, fastForwarded, merged, conflicts, corrupt, converged, 0);
  }
}
