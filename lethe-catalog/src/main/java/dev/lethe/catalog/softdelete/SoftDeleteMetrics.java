package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.jobs.DatabaseClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;

/**
 * Gauges of soft deletion (docs/design/0433-observability.md), cluster-wide, read from {@code
 * lethe_entity_deletion} by one indexed count over {@code (state, retention_expires_at)}, at most
 * once per {@link #SNAPSHOT_TTL} whatever the scrape rate: {@code lethe.softdelete.retained}
 * (records still {@code DELETED}), {@code lethe.softdelete.expiring} (of those, the ones whose
 * retention ends within {@link #EXPIRING_WITHIN}), {@code lethe.softdelete.expired} (retention
 * over, no cleanup job yet, no legal hold: waiting for the expiry timer) and {@code
 * lethe.softdelete.held} (retention over, no job, kept by a legal hold: not waiting to be purged;
 * docs/design/0444-legal-holds.md). The gauges hold this object strongly: the
 * server keeps no other reference to it.
 */
public final class SoftDeleteMetrics {
  /** How long one read of the table answers the gauges. */
  public static final Duration SNAPSHOT_TTL = Duration.ofSeconds(5);
  /** The window of {@code lethe.softdelete.expiring}. */
  public static final Duration EXPIRING_WITHIN = Duration.ofHours(24);

  private final CatalogDatabase database;
  private final Clock clock;
  private final DatabaseClock dbClock;
  private Snapshot snapshot;

  private record Snapshot(long takenAt, long retained, long expiring, long expired, long held) {}

  /** Registers the gauges; nothing is read until the first scrape. */
  public SoftDeleteMetrics(MeterRegistry registry, CatalogDatabase database, Clock clock) {
    this.database = database;
    this.clock = clock;
    this.dbClock = DatabaseClock.of(database.vendor());
    Gauge.builder("lethe.softdelete.retained", this, m -> m.snapshot().retained()).strongReference(true)
        .description("Soft-deleted tables and views still retained (DELETED, recoverable or waiting for purge), "
            + "cluster-wide").register(registry);
    Gauge.builder("lethe.softdelete.expiring", this, m -> m.snapshot().expiring()).strongReference(true)
        .description("Retained tables and views whose retention ends within the next 24 hours").register(registry);
    Gauge.builder("lethe.softdelete.expired", this, m -> m.snapshot().expired()).strongReference(true)
        .description("Tables and views whose retention ended and that wait for the expiry timer to purge them "
            + "(held ones not counted)")
        .register(registry);
    Gauge.builder("lethe.softdelete.held", this, m -> m.snapshot().held()).strongReference(true)
        .description("Soft-deleted tables whose retention ended and that a legal hold keeps from being purged")
        .register(registry);
  }

  private synchronized Snapshot snapshot() {
    long now = clock.millis();
    if (snapshot == null || now - snapshot.takenAt() >= SNAPSHOT_TTL.toMillis()) {
      // deadlines are on the database's clock, as the expiry timer reads them
      snapshot = database.background().withHandle(h -> {
        long dbNow = dbClock.millis(h);
        long[] counts = h.createQuery("SELECT COUNT(*) AS retained, "
              + "COALESCE(SUM(CASE WHEN retention_expires_at > :now AND retention_expires_at <= :soon THEN 1 ELSE 0 END), 0)"
              + " AS expiring FROM lethe_entity_deletion WHERE state = 'DELETED'")
            .bind("now", dbNow)
            .bind("soon", dbNow + EXPIRING_WITHIN.toMillis())
            .map((rs, ctx) -> new long[] {rs.getLong("retained"), rs.getLong("expiring")})
            .one();
        // a held record past its deadline is not waiting to be purged: counted apart
        DeletionDao.PastDeadline past = new DeletionDao(h).pastDeadline(dbNow);
        return new Snapshot(now, counts[0], counts[1], past.expired(), past.held());
      });
    }
    return snapshot;
  }
}
