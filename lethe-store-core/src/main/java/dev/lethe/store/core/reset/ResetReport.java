package dev.lethe.store.core.reset;

import dev.lethe.store.core.RecordKey;
import java.util.List;

/**
 * What a reset did.
 *
 * @param deleted live records turned into tombstones
 * @param conflicts keys edited concurrently and left live; a re-run deletes them
 */
public record ResetReport(int deleted, List<RecordKey> conflicts) {
  public ResetReport {
    conflicts = List.copyOf(conflicts);
  }
}
