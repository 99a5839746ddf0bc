package dev.lethe.server.config;

import java.util.Map;

/**
 * The keys that bound what one slow or hostile client can hold of the HTTP server
 * (docs/design/0420-a-slow-client-holds-nothing-of-the-others.md).
 */
public final class HttpLimitsConfig {
  /** Default of {@link ConfigKeys#IDLE_TIMEOUT_MS}: 30 s (Jetty's own default). */
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 30_000;
  /** Largest {@link ConfigKeys#IDLE_TIMEOUT_MS}: one hour. */
  public static final long MAX_IDLE_TIMEOUT_MS = 3_600_000;
  /** Default of {@link ConfigKeys#MAX_REQUESTS_PER_CLIENT}. */
  public static final int DEFAULT_MAX_REQUESTS_PER_CLIENT = 32;
  /** Largest {@link ConfigKeys#MAX_REQUESTS_PER_CLIENT}. */
  public static final int MAX_MAX_REQUESTS_PER_CLIENT = 10_000;

  private HttpLimitsConfig() {}

  /**
   * {@link ConfigKeys#IDLE_TIMEOUT_MS} in ms; default {@value #DEFAULT_IDLE_TIMEOUT_MS}.
   *
   * @throws ConfigException naming the key when the value is not a number in 1..{@value #MAX_IDLE_TIMEOUT_MS}
   */
  public static long idleTimeoutMs(Map<String, String> values) {
    return ConfigNumbers.number(values, ConfigKeys.IDLE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, 1, MAX_IDLE_TIMEOUT_MS);
  }

  /**
   * {@link ConfigKeys#MAX_REQUESTS_PER_CLIENT}: requests of one client address handled at once;
   * default {@value #DEFAULT_MAX_REQUESTS_PER_CLIENT}.
   *
   * @throws ConfigException naming the key when the value is not a number in 1..{@value #MAX_MAX_REQUESTS_PER_CLIENT}
   */
  public static int maxRequestsPerClient(Map<String, String> values) {
    return (int) ConfigNumbers.number(values, ConfigKeys.MAX_REQUESTS_PER_CLIENT, DEFAULT_MAX_REQUESTS_PER_CLIENT, 1,
        MAX_MAX_REQUESTS_PER_CLIENT);
  }
}
