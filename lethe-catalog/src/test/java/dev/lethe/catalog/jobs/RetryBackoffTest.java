package dev.lethe.catalog.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The retry wait of a failed cleanup job (issue 9 rule 5) as a pure function, randomized with a seed. */
class RetryBackoffTest {
  private static final long SEED = Long.getLong("lethe.test.seed", 20261201L);

  @Test
  void ceilingDoublesFromTheInitialWaitUpToTheCapWithoutOverflow() {
    assertThat(RetryBackoff.ceilingMs(1, 2000, 300_000)).isEqualTo(2000);
    assertThat(RetryBackoff.ceilingMs(2, 2000, 300_000)).isEqualTo(4000);
    assertThat(RetryBackoff.ceilingMs(5, 2000, 300_000)).isEqualTo(32_000);
    assertThat(RetryBackoff.ceilingMs(9, 2000, 300_000)).isEqualTo(300_000);
    assertThat(RetryBackoff.ceilingMs(1_000_000, Long.MAX_VALUE / 3, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(RetryBackoff.ceilingMs(3, 0, 300_000)).isZero();
    assertThatThrownBy(() -> RetryBackoff.ceilingMs(0, 1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("attempts must be >= 1, got 0");
  }

  @Test
  void everyWaitIsBetweenHalfTheCeilingAndTheCeilingNeverNegativeNeverAboveTheCap() {
    Random random = new Random(SEED);
    for (int i = 0; i < 100_000; i++) {
      long initial = random.nextInt(4) == 0 ? random.nextInt(3) : 1 + (long) random.nextInt(100_000);
      long max = initial + (random.nextBoolean() ? random.nextInt(1_000_000) : Long.MAX_VALUE / 2);
      int attempts = 1 + random.nextInt(random.nextBoolean() ? 10 : 200);
      long delay = RetryBackoff.delayMs(attempts, initial, max, b -> Math.floorMod(random.nextLong(), b));
      long ceiling = RetryBackoff.ceilingMs(attempts, initial, max);
      assertThat(delay).as("seed %d, case %d: attempts=%d initial=%d max=%d", SEED, i, attempts, initial, max)
          .isBetween(ceiling / 2, ceiling)
          .isGreaterThanOrEqualTo(0)
          .isLessThanOrEqualTo(max);
    }
  }

  @Test
  void theExtremesOfTheRandomSourceGiveHalfAndFullCeiling() {
    assertThat(RetryBackoff.delayMs(3, 1000, 60_000, b -> 0)).isEqualTo(2000);
    assertThat(RetryBackoff.delayMs(3, 1000, 60_000, b -> b - 1)).isEqualTo(4000);
    assertThatThrownBy(() -> RetryBackoff.delayMs(3, 1000, 60_000, b -> b)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFaultOfSecondsCannotUseUpMaxAttemptsInMilliseconds() {
    // defaults: 5 attempts are 4 waits; whatever the dice say they add up to at least 15 s
    AsyncPurgeSettings d = AsyncPurgeSettings.DEFAULTS;
    Random random = new Random(SEED);
    long shortest = Long.MAX_VALUE;
    long longest = 0;
    for (int run = 0; run < 10_000; run++) {
      long total = 0;
      for (int attempts = 1; attempts < d.maxAttempts(); attempts++) {
        total += d.retryDelayMs(attempts, b -> Math.floorMod(random.nextLong(), b));
      }
      shortest = Math.min(shortest, total);
      longest = Math.max(longest, total);
    }
    assertThat(shortest).as("seed %d", SEED).isGreaterThanOrEqualTo(15_000);
    assertThat(longest).as("seed %d", SEED).isLessThanOrEqualTo(30_000);
    // jitter spreads jobs that failed together: the totals are not all the same
    assertThat(longest - shortest).isGreaterThan(5_000);
  }

  @Test
  void aTransientFailureSendsTheJobBackWithTheWaitAndExhaustionOrTerminalFailuresDoNot() {
    CleanupJob job = new CleanupJob(1, CleanupObjectType.TABLE, "m", "c", "main", "db", "t", "/x/metadata/1.json",
        "io", "v1:x", CleanupJobState.RUNNING, 1, null, 5L, "alice", 1, 1, 0, null, null);
    PurgeTransition.Write retry = (PurgeTransition.Write) PurgeTransition.next(job, new PurgeOutcome.Transient("down"), 5,
        attempts -> attempts * 1000L);
    assertThat(retry.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(retry.retryDelayMs()).isEqualTo(2000);
    PurgeTransition.Write last = (PurgeTransition.Write) PurgeTransition.next(job, new PurgeOutcome.Transient("down"), 2,
        attempts -> attempts * 1000L);
    assertThat(last.state()).isEqualTo(CleanupJobState.FAILED);
    assertThat(last.retryDelayMs()).isZero();
    PurgeTransition.Write released = (PurgeTransition.Write) PurgeTransition.next(job, new PurgeOutcome.Released(), 5,
        attempts -> attempts * 1000L);
    assertThat(released.retryDelayMs()).as("a server stopping is not a failed attempt: no wait").isZero();
  }

  @Test
  void settingsRefuseANegativeWaitOrACapBelowIt() {
    assertThatThrownBy(() -> new AsyncPurgeSettings(1, 1, 1, 1, 3, 1, 0, -1, 10))
        .hasMessageContaining("retry.initial-backoff-ms");
    assertThatThrownBy(() -> new AsyncPurgeSettings(1, 1, 1, 1, 3, 1, 0, 100, 10))
        .hasMessageContaining("retry.max-backoff-ms");
  }
}
