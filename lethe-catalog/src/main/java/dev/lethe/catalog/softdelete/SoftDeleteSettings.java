package dev.lethe.catalog.softdelete;

/**
 * Settings of the soft deletion (docs/design/0202-soft-deletion.md §8), keys under {@code
 * lethe.entity.soft-delete.}.
 *
 * @param enabled whether a table drop writes a deletion record instead of dropping (default false);
 *     gates new records only: existing ones still list, restore and expire when it is off (docs/design/0202-soft-deletion.md §7)
 * @param retentionMs window of a new drop, ms (default 86400000 = 24 h), 0 to 7776000000 (90 days);
 *     0 means a drop is expired at once
 * @param expiryIntervalMs how often the expiry timer claims expired records and finalizes purged
 *     ones, ms (default 60000), at least 1
 */
public record SoftDeleteSettings(boolean enabled, long retentionMs, long expiryIntervalMs) {
  /** Default expiry timer interval: one minute. */
  public static final long DEFAULT_EXPIRY_INTERVAL_MS = 60_000;
  /** Longest expiry timer interval: one day. */
  public static final long MAX_EXPIRY_INTERVAL_MS = 86_400_000;

  /** Off, 24 h, one minute. */
  public static final SoftDeleteSettings DEFAULTS =
      new SoftDeleteSettings(false, SoftDeletePlanner.DEFAULT_RETENTION_MS, DEFAULT_EXPIRY_INTERVAL_MS);

  /**
   * Checks the ranges.
   *
   * @throws IllegalArgumentException naming the setting out of range
   */
  public SoftDeleteSettings {
    try {
      SoftDeletePlanner.validateRetention(retentionMs);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("retention-ms: " + e.getMessage(), e);
    }
    if (expiryIntervalMs < 1 || expiryIntervalMs > MAX_EXPIRY_INTERVAL_MS) {
      throw new IllegalArgumentException("expiry-interval-ms must be 1.." + MAX_EXPIRY_INTERVAL_MS + ", got " + expiryIntervalMs);
    }
  }
}
