package dev.lethe.store.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.IntUnaryOperator;

/**
 * The chaos loop's decisions (docs/design/0145-ha-soak.md "Chaos"): which replica dies next, and
 * how many replicas a run must kill while they serve to have proved anything. Pure: the loop
 * probes the replicas, asks, and applies.
 */
final class ChaosPlanner {
  /** Serving kills a run of at least a minute must make (fewer is NoProgress). */
  static final int SERVING_KILLS_OF_A_MINUTE = 2;

  private ChaosPlanner() {}

  /**
   * The next victim: a seeded pick among the replicas serving now, such that at least {@code
   * keepServing} others keep serving. A replica still starting (or restarting) is never picked, so
   * every kill lands on a replica that takes traffic.
   *
   * @param serving per replica, whether it answered a request just now
   * @param keepServing how many serving replicas must survive the kill, at least 0
   * @param draw given {@code n > 0}, a seeded number in {@code [0, n)}; called only when a victim exists
   * @return the victim's index, or empty when no replica may die now
   */
  static OptionalInt victim(List<Boolean> serving, int keepServing, IntUnaryOperator draw) {
    if (keepServing < 0) {
      throw new IllegalArgumentException("Cannot pick a victim: keepServing " + keepServing + " is negative");
    }
    List<Integer> candidates = new ArrayList<>();
    for (int i = 0; i < serving.size(); i++) {
      if (serving.get(i)) {
        candidates.add(i);
      }
    }
    if (candidates.isEmpty() || candidates.size() - 1 < keepServing) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(candidates.get(draw.applyAsInt(candidates.size())));
  }

  /**
   * How many replicas a run with chaos must have killed while they served, or its NoProgress row
   * counts 1: none without chaos; 1 for a run shorter than a minute; {@value
   * #SERVING_KILLS_OF_A_MINUTE} for a longer one, or fewer when its kill interval leaves room for
   * fewer (a kill due as the run ends races with the stop, so it is not counted on), never below 1.
   */
  static int servingKillsRequired(Duration duration, Duration killEvery) {
    if (killEvery.isZero()) {
      return 0;
    }
    if (duration.compareTo(Duration.ofMinutes(1)) < 0) {
      return 1;
    }
    long fit = duration.toMillis() / killEvery.toMillis() - 1;
    return (int) Math.max(1, Math.min(SERVING_KILLS_OF_A_MINUTE, fit));
  }
}
