package dev.lethe.store.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The chaos loop's pick rule and its serving-kill floor, on replica sets given as who serves now. */
class ChaosPlannerTest {

  @Test
  void onlyAServingReplicaIsEverPicked() {
    // replicas 0 and 2 are still starting after a restart
    List<Boolean> serving = List.of(false, true, false, true, true);
    Map<Integer, Integer> picked = new HashMap<>();
    Random rng = new Random(7);
    for (int round = 0; round < 3000; round++) {
      picked.merge(ChaosPlanner.victim(serving, 1, rng::nextInt).orElseThrow(), 1, Integer::sum);
    }
    assertThat(picked.keySet()).containsExactlyInAnyOrder(1, 3, 4);
    assertThat(picked.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
  }

  @Test
  void theLastServingReplicaIsKeptUnlessTheOperatorAsksOtherwise() {
    assertThat(ChaosPlanner.victim(List.of(false, true, false), 1, n -> 0)).isEmpty();
    assertThat(ChaosPlanner.victim(List.of(false, true, false), 0, n -> 0)).hasValue(1);
    assertThat(ChaosPlanner.victim(List.of(true, true, false), 1, n -> n - 1)).hasValue(1);
    assertThat(ChaosPlanner.victim(List.of(true, true, true), 2, n -> 2)).hasValue(2);
    assertThat(ChaosPlanner.victim(List.of(true, true, false), 2, n -> 0)).isEmpty();
    // one replica, nothing to keep: it is killed once it serves, never while it starts
    assertThat(ChaosPlanner.victim(List.of(true), 0, n -> 0)).hasValue(0);
    assertThat(ChaosPlanner.victim(List.of(false), 0, n -> 0)).isEmpty();
  }

  @Test
  void noReplicaServingMeansNoKillAndNoDraw() {
    List<Integer> draws = new ArrayList<>();
    OptionalInt v = ChaosPlanner.victim(List.of(false, false, false), 0, n -> {
      draws.add(n);
      return 0;
    });
    assertThat(v).isEmpty();
    assertThat(draws).isEmpty();
  }

  @Test
  void aNegativeKeepIsRefused() {
    assertThatThrownBy(() -> ChaosPlanner.victim(List.of(true), -1, n -> 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keepServing -1");
  }

  /**
   * A fake replica set under the loop's rules: a killed replica restarts for longer than the kill
   * interval (as on a loaded 2-core machine), and each tick asks the planner. Every kill hits a
   * replica serving at that moment, at least one serves throughout, and the seeded run is repeatable.
   */
  @Test
  void onAFakeReplicaSetThatStartsSlowlyEveryKillHitsAServingReplicaAndOneKeepsServing() {
    List<Integer> first = fakeRun(11);
    assertThat(first).hasSizeGreaterThan(10);
    assertThat(fakeRun(11)).isEqualTo(first);
  }

  /** Victims of a 600-tick run: 3 replicas, a restart takes 7 ticks, the interval 3 ticks after a victim is available. */
  private static List<Integer> fakeRun(long seed) {
    int[] readyAt = new int[3];
    Random rng = new Random(seed);
    List<Integer> victims = new ArrayList<>();
    int availableSince = -1;
    for (int tick = 0; tick < 600; tick++) {
      int now = tick;
      List<Boolean> serving = List.of(readyAt[0] <= now, readyAt[1] <= now, readyAt[2] <= now);
      assertThat(serving).contains(true);
      if (ChaosPlanner.victim(serving, 1, n -> 0).isEmpty()) {
        availableSince = -1;
        continue;
      }
      availableSince = availableSince < 0 ? tick : availableSince;
      if (tick - availableSince < 3) {
        continue;
      }
      int v = ChaosPlanner.victim(serving, 1, rng::nextInt).orElseThrow();
      assertThat(serving.get(v)).as("victim %d at tick %d", v, tick).isTrue();
      victims.add(v);
      readyAt[v] = tick + 7;
      availableSince = -1;
    }
    return victims;
  }

  @ParameterizedTest
  @CsvSource({
      "PT0S, PT60S, 0",   // no chaos, nothing required
      "PT3S, PT20S, 1",   // shorter than a minute: one serving kill
      "PT3S, PT60S, 2",   // a minute and more: two
      "PT3S, PT10M, 2",
      "PT40S, PT60S, 1",  // room for one kill before the end only
      "PT60S, PT60S, 1",  // never below one: chaos that cannot fire proved nothing
      "PT30S, PT90S, 2"})
  void aRunMustKillAFewServingReplicas(Duration killEvery, Duration duration, int required) {
    assertThat(ChaosPlanner.servingKillsRequired(duration, killEvery)).isEqualTo(required);
  }
}
