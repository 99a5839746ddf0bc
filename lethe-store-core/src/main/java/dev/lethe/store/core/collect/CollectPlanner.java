package dev.lethe.store.core.collect;

import dev.lethe.store.core.Record;
import java.time.Duration;

/**
 * Decides whether collect purges a record (docs/design/0203-store-model.md "Sync, reset, collect"): only a
 * tombstone whose {@code deletedAt} is at least the horizon old. Unstamped tombstones are never
 * collected; a future-dated one (clock skew) is too young. Purging too early lets a peer that was
 * offline longer than the horizon sync its live copy back, so the horizon is always the operator's.
 */
public final class CollectPlanner {

  /** The verdict for one record. */
  public enum Verdict {
    /** Not a tombstone: never touched. */
    LIVE,
    /** A tombstone at least the horizon old: purge it, conditionally on its revision. */
    PURGE,
    /** A tombstone younger than the horizon, or dated in the future: keep. */
    TOO_YOUNG,
    /** A tombstone without {@code deletedAt}: keep and count. */
    UNSTAMPED
  }

  private CollectPlanner() {}

  /**
   * Judges one record.
   *
   * @param nowMs now, ms since the epoch
   * @param horizon minimum tombstone age, positive
   */
  public static Verdict judge(Record record, long nowMs, Duration horizon) {
    checkHorizon(horizon);
    if (!record.isTombstone()) {
      return Verdict.LIVE;
    }
    Long deletedAt = record.deletedAt();
    if (deletedAt == null) {
      return Verdict.UNSTAMPED;
    }
    if (deletedAt > nowMs) {
      return Verdict.TOO_YOUNG;
    }
    // Subtract from the age rather than from now so a huge horizon cannot underflow.
    return nowMs - deletedAt >= horizon.toMillis() ? Verdict.PURGE : Verdict.TOO_YOUNG;
  }

  /** @throws IllegalArgumentException if the horizon is null, zero or negative */
  public static Duration checkHorizon(Duration horizon) {
    if (horizon == null || horizon.isZero() || horizon.isNegative()) {
      throw new IllegalArgumentException("Cannot collect: the horizon must be positive");
    }
    return horizon;
  }
}
