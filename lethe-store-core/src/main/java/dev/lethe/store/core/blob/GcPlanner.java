package dev.lethe.store.core.blob;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Decides which blobs {@code gc} sweeps: those no raw record references (as body or as a
 * tombstone's pinned {@code deletedBlob}) and stored at least a grace period ago. The grace
 * covers a writer that stored a blob and has not yet written the record that refers to it.
 */
public final class GcPlanner {

  /** The default grace: one hour. */
  public static final Duration DEFAULT_GRACE = Duration.ofHours(1);

  private GcPlanner() {}

  /**
   * Returns the hashes to sweep.
   *
   * @param referenced hashes referenced by any raw record
   * @param blobs the stored blobs
   * @param nowMs now, ms since the epoch
   * @param grace minimum age of a swept blob, not negative
   */
  public static List<String> sweep(
      Set<String> referenced, Collection<BlobInfo> blobs, long nowMs, Duration grace) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("Cannot gc: grace " + grace + " is negative");
    }
    List<String> out = new ArrayList<>();
    for (BlobInfo b : blobs) {
      if (!referenced.contains(b.hash()) && b.storedAt() <= nowMs - grace.toMillis()) {
        out.add(b.hash());
      }
    }
    return out;
  }
}
