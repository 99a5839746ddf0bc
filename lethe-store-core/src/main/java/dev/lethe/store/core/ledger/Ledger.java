package dev.lethe.store.core.ledger;

import dev.lethe.store.core.KeyPrefix;
import java.util.List;
import java.util.Optional;

/**
 * What a store remembers about itself besides its records (docs/design/0150-store-identity-and-peers.md,
 * docs/design/0151-purge-log.md): its id, the peers it synced with, its last collect cutoff and
 * its purge log. Kept in the store, never synced. Every substrate implements it; the rules that
 * use it are pure planners ({@link dev.lethe.store.core.sync.RestorePlanner},
 * {@link dev.lethe.store.core.collect.CollectGate}). I/O failures are {@link java.io.UncheckedIOException}.
 */
public interface Ledger {

  /** The store's id, created and kept on first use; the same for every later call and process. */
  String storeId();

  /** Now on the store's own clock, ms since the epoch (a server's clock for a remote store). */
  long now();

  /** The peers this store has completed a sync with, ordered by id. */
  List<Peer> peers();

  /** Records (or replaces, by id) a peer after a completed sync. */
  void recordPeer(Peer peer);

  /** Forgets a peer; false when it was not known. */
  boolean forgetPeer(String id);

  /** The cutoff of this store's last collect (ms since the epoch, its clock), empty if never. */
  Optional<Long> collectCutoff();

  /** Records a collect that removed tombstones deleted before {@code cutoffMs}. */
  void recordCollect(long cutoffMs);

  /**
   * Appends one entry; called by the store before it physically removes a tombstone, so a removal
   * is never missing from the log (an entry whose removal then failed is harmless).
   */
  void appendPurged(PurgeEntry entry);

  /** Every entry under {@code prefix} in append order, oldest first (a key removed twice appears twice). */
  List<PurgeEntry> purged(KeyPrefix prefix);

  /**
   * The next at most {@code size} entries under {@code prefix} after the cursor {@code after} (a
   * previous page's {@link PurgeLogPage#next}; empty: from the start), in append order
   * (docs/design/0157-purge-log-pages.md). This default pages {@link #purged}; a ledger that can
   * read a page without reading the whole log overrides it.
   *
   * @throws IllegalArgumentException for a size outside 1 to {@link PurgeLogPage#MAX_SIZE}, or a
   *     cursor this ledger did not issue or that a trim made stale
   */
  default PurgeLogPage purgedPage(KeyPrefix prefix, Optional<String> after, int size) {
    return PurgeLogPage.ofLines(purged(prefix).stream().map(LedgerJson::entry).toList(), prefix, after, size);
  }

  /**
   * Removes entries purged before {@code purgedBeforeMs}; returns how many.
   *
   * @throws IllegalArgumentException when {@link PurgeLogHorizon} refuses the cutoff (after the last
   *     collect's cutoff, or no collect recorded); nothing is removed then
   */
  int trimPurged(long purgedBeforeMs);
}
