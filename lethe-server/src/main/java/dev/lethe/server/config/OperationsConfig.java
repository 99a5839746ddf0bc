package dev.lethe.server.config;

import java.util.Locale;
import java.util.Map;

/**
 * The operational keys of {@code lethe server}: who may scrape {@code /metrics}, how long a stop
 * waits for requests in flight (docs/design/0410-operations.md), and how often the auth file is
 * looked at (docs/design/0425-auth-file-reload.md).
 */
public final class OperationsConfig {
  /** Default of {@link ConfigKeys#SHUTDOWN_TIMEOUT_MS}: 10 s. */
  public static final long DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
  /** Largest {@link ConfigKeys#SHUTDOWN_TIMEOUT_MS}: one hour. */
  public static final long MAX_SHUTDOWN_TIMEOUT_MS = 3_600_000;

  /** Default of {@link ConfigKeys#AUTH_RELOAD_INTERVAL_MS}: 2 s. */
  public static final long DEFAULT_AUTH_RELOAD_INTERVAL_MS = 2_000;

  private OperationsConfig() {}

  /**
   * {@link ConfigKeys#AUTH_RELOAD_INTERVAL_MS} in ms; default {@value #DEFAULT_AUTH_RELOAD_INTERVAL_MS}; 0 = on SIGHUP only.
   *
   * @throws ConfigException naming the key when the value is not a number in 0..3600000
   */
  public static long authReloadIntervalMs(Map<String, String> values) {
    return ConfigNumbers.number(values, ConfigKeys.AUTH_RELOAD_INTERVAL_MS, DEFAULT_AUTH_RELOAD_INTERVAL_MS, 0, 3_600_000);
  }

  /**
   * {@link ConfigKeys#METRICS_PUBLIC}; default false.
   *
   * @throws ConfigException naming the key when the value is not {@code true} or {@code false}
   */
  public static boolean metricsPublic(Map<String, String> values) {
    return bool(values, ConfigKeys.METRICS_PUBLIC);
  }

  /** The values of {@link ConfigKeys#LOG_FORMAT}. */
  public enum LogFormat { TEXT, JSON }

  /**
   * {@link ConfigKeys#LOG_FORMAT}; default {@link LogFormat#TEXT}.
   *
   * @throws ConfigException naming the key when the value is not {@code text} or {@code json}
   */
  public static LogFormat logFormat(Map<String, String> values) {
    String v = values.get(ConfigKeys.LOG_FORMAT);
    if (v == null) {
      return LogFormat.TEXT;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "text" -> LogFormat.TEXT;
      case "json" -> LogFormat.JSON;
      default -> throw new ConfigException("Invalid " + ConfigKeys.LOG_FORMAT + ": expected text or json: " + v);
    };
  }

  /**
   * {@link ConfigKeys#LOG_REQUESTS}; default false.
   *
   * @throws ConfigException naming the key when the value is not {@code true} or {@code false}
   */
  public static boolean logRequests(Map<String, String> values) {
    return bool(values, ConfigKeys.LOG_REQUESTS);
  }

  private static boolean bool(Map<String, String> values, String key) {
    String v = values.get(key);
    if (v == null) {
      return false;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new ConfigException("Invalid " + key + ": expected true or false: " + v);
    };
  }

  /**
   * {@link ConfigKeys#SHUTDOWN_TIMEOUT_MS} in ms; default {@value #DEFAULT_SHUTDOWN_TIMEOUT_MS}.
   *
   * @throws ConfigException naming the key when the value is not a number in 0..{@value #MAX_SHUTDOWN_TIMEOUT_MS}
   */
  public static long shutdownTimeoutMs(Map<String, String> values) {
    return ConfigNumbers.number(values, ConfigKeys.SHUTDOWN_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS, 0,
        MAX_SHUTDOWN_TIMEOUT_MS);
  }
}
