package dev.lethe.store.core.ledger;

import java.time.Duration;
import java.util.Optional;

/**
 * How far a purge log may be trimmed (docs/design/0151-purge-log.md "Trimming"): never past the
 * cutoff of the store's last collect, so every entry is kept at least as long after its purge as
 * the last horizon in use keeps a tombstone after its delete. Without a recorded collect no horizon
 * has been chosen, and nothing may be trimmed. Pure: every substrate's {@link Ledger#trimPurged}
 * applies it before removing anything (JDBC in the trim's transaction), so the HTTP and gRPC trim
 * calls refuse what it refuses; the CLI applies {@link #outlives} to its two durations first.
 */
public final class PurgeLogHorizon {

  private PurgeLogHorizon() {}

  /**
   * Why a trim of the entries purged before {@code purgedBeforeMs} is refused, or empty when it may
   * run.
   *
   * @param purgedBeforeMs the trim's cutoff, ms since the epoch on the store's clock
   * @param collectCutoffMs the store's last collect cutoff ({@link Ledger#collectCutoff}), or empty
   */
  public static Optional<String> refusal(long purgedBeforeMs, Optional<Long> collectCutoffMs) {
    if (collectCutoffMs.isEmpty()) {
      return Optional.of("Cannot trim the purge log before " + purgedBeforeMs
          + ": no collect is recorded, so no horizon bounds it (the purge log must outlive the tombstones)");
    }
    if (purgedBeforeMs > collectCutoffMs.get()) {
      return Optional.of("Cannot trim the purge log before " + purgedBeforeMs + ": it is after the last collect's cutoff "
          + collectCutoffMs.get() + " (the purge log must outlive the tombstones)");
    }
    return Optional.empty();
  }

  /**
   * Checks a trim and throws when {@link #refusal} refuses it.
   *
   * @throws IllegalArgumentException naming both cutoffs
   */
  public static void check(long purgedBeforeMs, Optional<Long> collectCutoffMs) {
    Optional<String> why = refusal(purgedBeforeMs, collectCutoffMs);
    if (why.isPresent()) {
      throw new IllegalArgumentException(why.get());
    }
  }

  /** The same rule between two durations at one instant: a log kept {@code trim} outlives tombstones kept {@code horizon}. */
  public static boolean outlives(Duration trim, Duration horizon) {
    return trim.compareTo(horizon) >= 0;
  }

  /**
   * The cutoff of a trim of entries purged at least {@code trim} before {@code nowMs}, never past the
   * last collect's cutoff; empty when no collect is recorded (nothing may be trimmed).
   */
  public static Optional<Long> cutoff(long nowMs, Duration trim, Optional<Long> collectCutoffMs) {
    return collectCutoffMs.map(c -> Math.min(c, nowMs - Math.min(trim.toMillis(), nowMs)));
  }
}
