package dev.lethe.store.core.collect;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.progress.Progress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Collect: purge tombstones at least a horizon old, each conditionally on the revision read, so a
 * key recreated meanwhile survives (docs/design/0203-store-model.md "Sync, reset, collect"). There is no default
 * horizon. Tombstones a known peer has not synced past, or whose date a clock may have got wrong,
 * are held back (docs/design/0153-collect-gating.md).
 */
public final class Collect {

  private Collect() {}

  /** {@link #run(Store, KeyPrefix, Duration, Clock, Progress, CollectGate.Mode, Duration)} refusing when peers are behind. */
  public static CollectReport run(
      Store store, KeyPrefix prefix, Duration horizon, Clock clock, Progress progress) {
    return run(store, prefix, horizon, clock, progress, CollectGate.Mode.REFUSE, CollectGate.DEFAULT_SKEW);
  }

  /**
   * Collects under {@code prefix}.
   *
   * @param horizon minimum tombstone age, positive
   * @param clock unused: "now" is the store's own clock ({@link dev.lethe.store.core.ledger.Ledger#now}),
   *     the clock its peers' sync times and its tombstones' dates were taken on
   *     (docs/design/0153-collect-gating.md); kept so callers need not change
   * @param mode what to do with tombstones some known peer has not synced past
   * @param tolerance how far clocks may disagree before a tombstone's date is distrusted
   * @throws IllegalArgumentException if the horizon is not positive (nothing is purged)
   * @throws java.io.UncheckedIOException on a store error
   */
  public static CollectReport run(Store store, KeyPrefix prefix, Duration horizon, Clock clock,
      Progress progress, CollectGate.Mode mode, Duration tolerance) {
    CollectPlanner.checkHorizon(horizon);
    List<Peer> peers = store.ledger().peers();
    List<Record> records = store.listRaw(prefix);
    long now = store.ledger().now();
    int unstamped = 0;
    int tooYoung = 0;
    Map<String, Integer> heldBack = new TreeMap<>();
    Map<RecordKey, String> skewed = new LinkedHashMap<>();
    List<Record> toPurge = new ArrayList<>();
    boolean held = false;
    for (Record r : records) {
      switch (CollectPlanner.judge(r, now, horizon)) {
        case PURGE -> {
          CollectGate.Judgement j = CollectGate.judge(r, now, horizon, peers, tolerance);
          if (j.skew() != null) {
            skewed.put(r.key(), j.skew());
          } else {
            j.heldBy().forEach(id -> heldBack.merge(id, 1, Integer::sum));
            held |= !j.heldBy().isEmpty();
            if (j.purgeable(mode)) {
              toPurge.add(r);
            }
          }
        }
        case UNSTAMPED -> unstamped++;
        case TOO_YOUNG -> {
          if (r.deletedAt() > now + tolerance.toMillis()) {
            skewed.put(r.key(), CollectGate.judge(r, now, horizon, List.of(), tolerance).skew());
          } else {
            tooYoung++;
          }
        }
        case LIVE -> { }
      }
    }
    if (held && mode == CollectGate.Mode.REFUSE) {
      return new CollectReport(0, unstamped, tooYoung, List.of(), heldBack, skewed, true);
    }
    int purged = 0;
    List<RecordKey> conflicts = new ArrayList<>();
    long done = 0;
    for (Record r : toPurge) {
      DeleteResult result = store.purge(r.key(), Optional.of(r.revision()));
      if (result instanceof Conflict) {
        conflicts.add(r.key());
      } else {
        purged++;
      }
      progress.update(++done, toPurge.size());
    }
    if (purged > 0) {
      store.ledger().recordCollect(now - Math.min(horizon.toMillis(), now));
    }
    return new CollectReport(purged, unstamped, tooYoung, conflicts, heldBack, skewed, false);
  }
}
