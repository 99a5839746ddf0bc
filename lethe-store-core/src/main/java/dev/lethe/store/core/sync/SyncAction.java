package dev.lethe.store.core.sync;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;

/** What sync does for one key, decided by {@link SyncPlanner}. */
public sealed interface SyncAction {

  /** Which store a write goes to. */
  enum Side { A, B }

  /** Both sides hold the same revision (or nothing): nothing to do. */
  record InSync() implements SyncAction {}

  /** Only one side holds the key: copy it to {@code to} with no expected revision. */
  record Copy(Side to, Record record) implements SyncAction {}

  /**
   * {@code to} is behind: overwrite its {@code expected} revision with {@code record}. Also used
   * when two unrelated tombstones meet: the higher {@code (counter, hash)} wins on both sides.
   */
  record FastForward(Side to, Record record, Revision expected) implements SyncAction {}

  /** Both sides are live and diverged; write {@code merged} over each side's revision. */
  record Merge(Record merged, Revision expectedA, Revision expectedB) implements SyncAction {}

  /** The sides diverged and cannot be reconciled without discarding someone's intent. */
  record Diverged(String reason) implements SyncAction {}
}
