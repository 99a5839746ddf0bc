package dev.lethe.server.config;

import dev.lethe.catalog.softdelete.SoftDeletePlanner;
import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the {@code lethe.entity.soft-delete.*} keys (docs/design/0202-soft-deletion.md §8) into {@link
 * SoftDeleteSettings}; a bad value is a {@link ConfigException} naming its key (start-up exits 2).
 */
public final class SoftDeleteConfig {
  private SoftDeleteConfig() {}

  /**
   * @param values resolved configuration keys
   * @throws ConfigException naming the key of a value that is not {@code true}/{@code false}, not a
   *     number, or out of range
   */
  public static SoftDeleteSettings settings(Map<String, String> values) {
    SoftDeleteSettings d = SoftDeleteSettings.DEFAULTS;
    return new SoftDeleteSettings(
        bool(values, ConfigKeys.SOFT_DELETE_ENABLED, d.enabled()),
        ConfigNumbers.number(values, ConfigKeys.SOFT_DELETE_RETENTION_MS, d.retentionMs(), 0,
            SoftDeletePlanner.MAX_RETENTION_MS),
        ConfigNumbers.number(values, ConfigKeys.SOFT_DELETE_EXPIRY_INTERVAL_MS, d.expiryIntervalMs(), 1,
            SoftDeleteSettings.MAX_EXPIRY_INTERVAL_MS));
  }

  private static boolean bool(Map<String, String> values, String key, boolean def) {
    String v = values.get(key);
    if (v == null) {
      return def;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new ConfigException("Invalid " + key + ": expected true or false: " + v);
    };
  }
}
