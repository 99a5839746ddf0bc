package dev.lethe.store.core.collect;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.ledger.Peer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides, for a tombstone old enough to collect ({@link CollectPlanner.Verdict#PURGE}), whether a
 * clock looks wrong about its age and which known peers have not synced since it was deleted
 * (docs/design/0153-collect-gating.md). Pure: no I/O, no clock.
 */
public final class CollectGate {

  /** What collect does with tombstones some peer has not synced past. */
  public enum Mode {
    /** Refuse the whole collect (nothing purged) when any tombstone is held back. */
    REFUSE,
    /** Purge only the tombstones every known peer has synced past. */
    SEEN_BY_ALL,
    /** Purge regardless of peers (clock skew still keeps a tombstone). */
    FORCE
  }

  /** Default tolerance between clocks. */
  public static final Duration DEFAULT_SKEW = Duration.ofMinutes(5);

  /**
   * The judgement of one tombstone.
   *
   * @param skew why its {@code deletedAt} cannot be trusted, or null
   * @param heldBy ids of known peers whose last completed sync is not after its deletion, never null
   */
  public record Judgement(String skew, List<String> heldBy) {
    public Judgement {
      heldBy = List.copyOf(heldBy);
    }

    /** Whether it may be purged in {@code mode}. */
    public boolean purgeable(Mode mode) {
      return skew == null && (mode == Mode.FORCE || heldBy.isEmpty());
    }
  }

  private CollectGate() {}

  /**
   * Judges a tombstone {@link CollectPlanner#judge} found old enough.
   *
   * @param nowMs now on the collecting store's clock, ms since the epoch
   * @param horizon the operator's horizon, positive
   * @param peers the store's known peers
   * @param tolerance how far clocks may disagree before a date is distrusted, not negative
   */
  public static Judgement judge(Record tombstone, long nowMs, Duration horizon, List<Peer> peers, Duration tolerance) {
    long deletedAt = tombstone.deletedAt();
    long tol = tolerance.toMillis();
    String skew = null;
    Long updated = tombstone.meta().updated();
    if (deletedAt > nowMs + tol) {
      skew = "deleted " + Duration.ofMillis(deletedAt - nowMs).toSeconds() + " s in the future of this store's clock";
    } else if (updated != null && deletedAt + tol < updated) {
      skew = "deleted " + Duration.ofMillis(updated - deletedAt).toSeconds() + " s before its last edit";
    } else {
      for (Peer p : peers) {
        long slow = -p.clockOffsetMs();
        if (slow > tol && nowMs - deletedAt - slow < horizon.toMillis()) {
          skew = "younger than the horizon if stamped by peer " + p.id() + ", whose clock was "
              + Duration.ofMillis(slow).toSeconds() + " s behind this store's";
          break;
        }
      }
    }
    List<String> heldBy = new ArrayList<>();
    for (Peer p : peers) {
      if (p.lastSyncMs() <= deletedAt) {
        heldBy.add(p.id());
      }
    }
    return new Judgement(skew, heldBy);
  }
}
