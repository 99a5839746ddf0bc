package dev.lethe.store.core.ledger;

import java.util.Objects;

/**
 * A store this store has completed a sync with (docs/design/0150-store-identity-and-peers.md).
 *
 * @param id the peer's store id, never null
 * @param uri the peer's URI as last seen by this store (for people; never opened from here), never null
 * @param lastSyncMs when the last sync with it completed, ms since the epoch on this store's clock
 * @param collectCutoffMs the peer's last collect cutoff (tombstones deleted before it may be gone
 *     there), ms since the epoch on the peer's clock, as it told at the last sync; null if it
 *     never collected
 * @param clockOffsetMs the peer's clock minus this store's clock at the last sync, ms (negative:
 *     the peer's clock is behind)
 */
public record Peer(String id, String uri, long lastSyncMs, Long collectCutoffMs, long clockOffsetMs) {
  public Peer {
    StoreIds.check(Objects.requireNonNull(id, "id"));
    Objects.requireNonNull(uri, "uri");
  }
}
