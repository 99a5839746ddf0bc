package dev.lethe.catalog.jobs;

import java.util.function.LongUnaryOperator;

/**
 * How long a cleanup job waits after a failed attempt before any worker may claim it again (issue
 * 9 rule 5, docs/design/0050-retry-backoff.md): exponential with "equal jitter". The n-th failed
 * attempt has the ceiling {@code min(max, initial * 2^(n-1))}; the wait is uniform in
 * {@code [ceiling/2, ceiling]}. Half the ceiling is always waited, so the attempts of a job are
 * spread over at least {@code (initial/2) * (2^(k) - 1)} ms for k retries (capped), and a fault that
 * lasts a few seconds cannot use up {@code max-attempts} in milliseconds; the random half keeps the
 * jobs of many replicas that failed together from retrying together.
 *
 * <p>A pure function of its arguments: the caller passes the random source.
 */
public final class RetryBackoff {
  private RetryBackoff() {}

  /**
   * The ceiling of the wait after the {@code attempts}-th failed attempt: {@code min(maxMs,
   * initialMs * 2^(attempts-1))}, without overflow.
   *
   * @param attempts failed attempts so far, at least 1
   */
  public static long ceilingMs(int attempts, long initialMs, long maxMs) {
    if (attempts < 1) {
      throw new IllegalArgumentException("Cannot compute backoff: attempts must be >= 1, got " + attempts);
    }
    if (initialMs <= 0 || maxMs <= 0) {
      return 0;
    }
    long ceiling = initialMs;
    for (int i = 1; i < attempts && ceiling < maxMs; i++) {
      ceiling = ceiling > maxMs / 2 ? maxMs : ceiling * 2;
    }
    return Math.min(ceiling, maxMs);
  }

  /**
   * The wait after the {@code attempts}-th failed attempt, in {@code [ceiling/2, ceiling]}.
   *
   * @param attempts failed attempts so far, at least 1
   * @param initialMs ceiling after the first failure ({@code retry.initial-backoff-ms}); 0 = no wait
   * @param maxMs cap of the ceiling ({@code retry.max-backoff-ms})
   * @param random given a bound {@code b >= 1}, returns a value in {@code [0, b)}
   */
  public static long delayMs(int attempts, long initialMs, long maxMs, LongUnaryOperator random) {
    long ceiling = ceilingMs(attempts, initialMs, maxMs);
    if (ceiling == 0) {
      return 0;
    }
    long half = ceiling / 2;
    long spread = ceiling - half; // the random part: [0, spread]
    long r = random.applyAsLong(spread + 1);
    if (r < 0 || r > spread) {
      throw new IllegalStateException("Random source returned " + r + " outside [0, " + (spread + 1) + ")");
    }
    return half + r;
  }
}
