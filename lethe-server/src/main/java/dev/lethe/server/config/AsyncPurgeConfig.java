package dev.lethe.server.config;

import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import java.util.Base64;
import java.util.Map;

/**
 * Reads the {@code lethe.iceberg-rest.async-purge.*} keys (docs/design/0201-cleanup-jobs.md §10) into {@link
 * AsyncPurgeSettings}; a bad value is a {@link ConfigException} naming its key.
 */
public final class AsyncPurgeConfig {
  private AsyncPurgeConfig() {}

  /**
   * @param values resolved configuration keys
   * @throws ConfigException naming the key of a value that is not a number or out of range
   */
  public static AsyncPurgeSettings settings(Map<String, String> values) {
    AsyncPurgeSettings d = AsyncPurgeSettings.DEFAULTS;
    try {
      return read(values, d);
    } catch (IllegalArgumentException e) {
      // ranges that depend on two keys (the cap below the initial wait)
      throw new ConfigException("Invalid " + ConfigKeys.ASYNC_PURGE + e.getMessage());
    }
  }

  private static AsyncPurgeSettings read(Map<String, String> values, AsyncPurgeSettings d) {
    return new AsyncPurgeSettings(
        (int) ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_WORKER_THREADS, d.workerThreads(), 0, 1024),
        (int) ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_DELETE_THREADS, d.deleteThreads(), 1, 1024),
        (int) ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_DELETE_BATCH_SIZE, d.deleteBatchSize(), 1, 100_000),
        ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, d.pollIntervalMs(), 1, Long.MAX_VALUE / 4),
        ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_HEARTBEAT_TIMEOUT_MS, d.heartbeatTimeoutMs(), 3, Long.MAX_VALUE / 4),
        (int) ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, d.maxAttempts(), 1, 1_000_000),
        ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_RETENTION_HOURS, d.retentionHours(), 0, 1_000_000),
        ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_RETRY_INITIAL_BACKOFF_MS, d.initialBackoffMs(), 0, Long.MAX_VALUE / 4),
        ConfigNumbers.number(values, ConfigKeys.ASYNC_PURGE_RETRY_MAX_BACKOFF_MS, d.maxBackoffMs(), 0, Long.MAX_VALUE / 4));
  }

  /**
   * The configured encryption key (base64), or null to use the generated key file.
   *
   * @throws ConfigException naming the key if it is not base64 of 16, 24 or 32 bytes (the message
   *     never repeats the value)
   */
  public static String encryptionKey(Map<String, String> values) {
    String v = values.get(ConfigKeys.ASYNC_PURGE_ENCRYPTION_KEY);
    if (v == null || v.isBlank()) {
      return null;
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(v.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Invalid " + ConfigKeys.ASYNC_PURGE_ENCRYPTION_KEY + ": not base64");
    }
    if (key.length != 16 && key.length != 24 && key.length != 32) {
      throw new ConfigException("Invalid " + ConfigKeys.ASYNC_PURGE_ENCRYPTION_KEY
          + ": expected base64 of 16, 24 or 32 bytes, got " + key.length + " bytes");
    }
    return v.trim();
  }
}
