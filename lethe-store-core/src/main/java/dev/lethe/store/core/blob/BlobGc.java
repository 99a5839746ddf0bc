package dev.lethe.store.core.blob;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Sweeps blobs that no raw record references and that are older than a grace (default one hour).
 * References are read from the replication surface, so a tombstone's pinned blob survives until
 * the tombstone is collected.
 */
public final class BlobGc {

  private final Clock clock;

  /** @param clock source of "now" */
  public BlobGc(Clock clock) {
    this.clock = clock;
  }

  /**
   * Runs one sweep over {@code store}'s blobs.
   *
   * @param grace minimum age of a swept blob
   * @throws java.io.UncheckedIOException on a store error (nothing more is swept)
   */
  public GcReport run(Store store, Duration grace) {
    // "now" is the start of the run: a blob touched by a writer after it is never old enough to
    // remove, however long the listings take (docs/design/0120-a-reused-blob-is-refreshed.md)
    long now = clock.millis();
    List<BlobInfo> blobs = store.blobs().list();
    // Read the records after listing blobs: a blob stored after the listing is not a candidate.
    Set<String> referenced = new HashSet<>();
    for (Record r : store.listRaw(KeyPrefix.all())) {
      referenced.addAll(r.referencedBlobs());
    }
    List<String> sweep = GcPlanner.sweep(referenced, blobs, now, grace);
    int swept = 0;
    for (String hash : sweep) {
      // Conditional on the age again: a writer may have re-stored or touched this blob while the
      // records were being read, and its record is not in the listing above.
      if (store.blobs().remove(hash, now - grace.toMillis())) {
        swept++;
      }
    }
    int ref = (int) blobs.stream().filter(b -> referenced.contains(b.hash())).count();
    return new GcReport(swept, ref, blobs.size() - ref - swept);
  }
}
