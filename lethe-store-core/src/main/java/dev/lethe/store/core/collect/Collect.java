package dev.lethe.store.core.collect;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.progress.Progress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Collect: purge tombstones at least a horizon old, each conditionally on the revision read, so a
 * key recreated meanwhile survives (docs/design/0203-store-model.md "Sync, reset, collect"). There is no default
 * horizon.
 */
public final class Collect {

  private Collect() {}

  /**
   * Collects under {@code prefix}.
   *
   * @param horizon minimum tombstone age, positive
   * @param clock source of "now"
   * @throws IllegalArgumentException if the horizon is not positive (nothing is purged)
   * @throws java.io.UncheckedIOException on a store error
   */
  public static CollectReport run(
      Store store, KeyPrefix prefix, Duration horizon, Clock clock, Progress progress) {
    CollectPlanner.checkHorizon(horizon);
    List<Record> records = store.listRaw(prefix);
    long now = clock.millis();
    int purged = 0;
    int unstamped = 0;
    int tooYoung = 0;
    List<RecordKey> conflicts = new ArrayList<>();
    long done = 0;
    for (Record r : records) {
      switch (CollectPlanner.judge(r, now, horizon)) {
        case PURGE -> {
          DeleteResult result = store.purge(r.key(), Optional.of(r.revision()));
          if (result instanceof Conflict) {
            conflicts.add(r.key());
          } else {
            purged++;
          }
        }
        case UNSTAMPED -> unstamped++;
        case TOO_YOUNG -> tooYoung++;
        case LIVE -> { }
      }
      progress.update(++done, records.size());
    }
    return new CollectReport(purged, unstamped, tooYoung, conflicts);
  }
}
