package dev.lethe.store.core.reset;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.progress.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reset: tombstone every live record of a namespace, or of one collection (docs/design/0203-store-model.md
 * "Sync, reset, collect"). Each delete is conditional on the revision just listed, so a record
 * edited meanwhile is reported as a conflict and left live. Not atomic (no substrate has
 * multi-key transactions) but idempotent: a re-run deletes what a first run missed.
 */
public final class Reset {

  private Reset() {}

  /**
   * Resets {@code prefix}.
   *
   * @param prefix must name a namespace
   * @param author the deleter to name in every tombstone, or empty to keep each record's author
   * @throws IllegalArgumentException if {@code prefix} names no namespace (nothing is deleted)
   * @throws java.io.UncheckedIOException on the first store error; a re-run after fixing it is safe
   */
  public static ResetReport run(
      Store store, KeyPrefix prefix, Optional<String> author, Progress progress) {
    if (prefix.namespace() == null) {
      throw new IllegalArgumentException("Cannot reset: a namespace is required");
    }
    List<Record> live = store.list(prefix);
    int deleted = 0;
    List<RecordKey> conflicts = new ArrayList<>();
    long done = 0;
    for (Record r : live) {
      DeleteResult result = store.deleteAs(r.key(), Optional.of(r.revision()), author);
      if (result instanceof Deleted d) {
        if (d.tombstone().isPresent()) {
          deleted++;
        }
      } else if (result instanceof Conflict) {
        conflicts.add(r.key());
      }
      progress.update(++done, live.size());
    }
    return new ResetReport(deleted, conflicts);
  }
}
