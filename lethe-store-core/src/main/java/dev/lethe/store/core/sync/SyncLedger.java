package dev.lethe.store.core.sync;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeEntry;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What sync reads from and writes to the two stores' ledgers
 * (docs/design/0150-store-identity-and-peers.md, docs/design/0152-sync-restores-collected-tombstones.md):
 * each side's purge log under the prefix, read once and only when a key is missing on that side,
 * newest entry per key; and, after a completed sync, each side's record of the other.
 */
final class SyncLedger {

  private final Store a;
  private final Store b;
  private final KeyPrefix prefix;
  private Map<RecordKey, PurgeEntry> purgedOnA;
  private Map<RecordKey, PurgeEntry> purgedOnB;
  int restored;

  SyncLedger(Store a, Store b, KeyPrefix prefix) {
    this.a = a;
    this.b = b;
    this.prefix = prefix;
  }

  /** A's newest entry for {@code key}. */
  Optional<PurgeEntry> onA(RecordKey key) {
    if (purgedOnA == null) {
      purgedOnA = newest(a.ledger());
    }
    return Optional.ofNullable(purgedOnA.get(key));
  }

  /** B's newest entry for {@code key}. */
  Optional<PurgeEntry> onB(RecordKey key) {
    if (purgedOnB == null) {
      purgedOnB = newest(b.ledger());
    }
    return Optional.ofNullable(purgedOnB.get(key));
  }

  private Map<RecordKey, PurgeEntry> newest(Ledger ledger) {
    Map<RecordKey, PurgeEntry> out = new HashMap<>();
    for (PurgeEntry e : ledger.purged(prefix)) {
      out.merge(e.key(), e, (x, y) -> y.tombstone().compareTo(x.tombstone()) >= 0 ? y : x);
    }
    return out;
  }

  /** Records each side on the other, with each side's own clock and the clocks' offset. */
  void recordCompleted() {
    Ledger la = a.ledger();
    Ledger lb = b.ledger();
    String idA = la.storeId();
    String idB = lb.storeId();
    if (idA.equals(idB)) {
      return; // a store synced with itself learns nothing about peers
    }
    long nowA = la.now();
    long nowB = lb.now();
    la.recordPeer(new Peer(idB, String.valueOf(b), nowA, lb.collectCutoff().orElse(null), nowB - nowA));
    lb.recordPeer(new Peer(idA, String.valueOf(a), nowB, la.collectCutoff().orElse(null), nowA - nowB));
  }
}
