package dev.lethe.store.core.sync;

import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.sync.SyncAction.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Two-way sync of the keys under a prefix (DESIGN.md "Store / Sync, reset, collect"). Reads and
 * writes only the replication surface: a copy goes through {@code putRaw(record, empty)}, so a
 * delete landing on the destination meanwhile is a {@code Conflict} that is re-planned with the
 * tombstone in view rather than a recreation. Blobs a written record refers to (its body or a
 * tombstone's pinned blob) are copied to the destination's blob store first, so no store ever
 * holds a record whose blob it lacks.
 */
public final class Sync {

  private Sync() {}

  /**
   * Syncs {@code a} and {@code b} under {@code prefix}.
   *
   * @throws java.io.UncheckedIOException on a store error; keys already handled stay written
   */
  public static SyncReport run(Store a, Store b, KeyPrefix prefix, SyncOptions options) {
    Map<RecordKey, Record> onA = index(a.listRaw(prefix));
    Map<RecordKey, Record> onB = index(b.listRaw(prefix));
    TreeSet<RecordKey> keys = new TreeSet<>(onA.keySet());
    keys.addAll(onB.keySet());
    int copied = 0;
    int fastForwarded = 0;
    int merged = 0;
    List<SyncConflict> conflicts = new ArrayList<>();
    long done = 0;
    for (RecordKey key : keys) {
      Optional<Record> ra = Optional.ofNullable(onA.get(key));
      Optional<Record> rb = Optional.ofNullable(onB.get(key));
      boolean settled = false;
      for (int attempt = 1; attempt <= options.maxAttempts() && !settled; attempt++) {
        if (attempt > 1) {
          ra = a.getRaw(key);
          rb = b.getRaw(key);
        }
        SyncAction action = SyncPlanner.plan(ra, rb);
        if (action instanceof SyncAction.InSync) {
          settled = true;
        } else if (action instanceof SyncAction.Diverged d) {
          conflicts.add(new SyncConflict(key, d.reason()));
          settled = true;
        } else if (action instanceof SyncAction.Copy c) {
          if (write(c.to() == Side.A ? b : a, c.to() == Side.A ? a : b, c.record(), Optional.empty())) {
            copied++;
            settled = true;
          }
        } else if (action instanceof SyncAction.FastForward f) {
          if (write(f.to() == Side.A ? b : a, f.to() == Side.A ? a : b, f.record(),
              Optional.of(f.expected()))) {
            fastForwarded++;
            settled = true;
          }
        } else if (action instanceof SyncAction.Merge m) {
          // Both writes are attempted; if one loses a race the next pass sees the merged side.
          boolean wa = write(b, a, m.merged(), Optional.of(m.expectedA()));
          boolean wb = write(a, b, m.merged(), Optional.of(m.expectedB()));
          if (wa && wb) {
            merged++;
            settled = true;
          }
        }
      }
      if (!settled) {
        conflicts.add(new SyncConflict(key,
            "still changing after " + options.maxAttempts() + " attempts"));
      }
      options.progress().update(++done, keys.size());
    }
    return new SyncReport(copied, fastForwarded, merged, conflicts, conflicts.isEmpty());
  }

  /** Copies {@code record}'s blobs from {@code from} to {@code to}, then puts it raw on {@code to}. */
  private static boolean write(Store from, Store to, Record record, Optional<Revision> expected) {
    for (String hash : record.referencedBlobs()) {
      if (!to.blobs().contains(hash)) {
        byte[] content = from.blobs().get(hash).orElseThrow(() -> new IllegalStateException(
            "Cannot sync " + record.key() + ": blob " + hash + " is missing from its source store"));
        to.blobs().put(content);
      }
    }
    PutResult r = to.putRaw(record, expected);
    return r instanceof Committed;
  }

  private static Map<RecordKey, Record> index(List<Record> records) {
    Map<RecordKey, Record> m = new TreeMap<>();
    records.forEach(r -> m.put(r.key(), r));
    return m;
  }
}
