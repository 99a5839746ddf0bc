package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Micrometer meters of the asynchronous purge (docs/design/0201-cleanup-jobs.md §9): gauges {@code
 * lethe.purge.jobs.pending}, {@code lethe.purge.jobs.running}, {@code lethe.purge.jobs.failed} and
 * {@code lethe.purge.oldest_pending_age_ms} read from the job table (cluster-wide, at most once per
 * second), counters {@code lethe.purge.completed}, {@code lethe.purge.failed} and {@code
 * lethe.purge.files.deleted} counted by this process; each with its HELP text
 * (docs/design/0433-observability.md).
 */
public final class PurgeMetrics {
  private static final long SNAPSHOT_TTL_MS = 1000;

  private final CatalogDatabase database;
  private final Clock clock;
  private final Counter completed;
  private final Counter failed;
  private final Counter filesDeleted;
  private final DatabaseClock dbClock;
  private Snapshot snapshot;

  private record Snapshot(long takenAt, Map<CleanupJobState, Long> counts, long oldestPendingAgeMs) {}

  /** Registers the meters. */
  public PurgeMetrics(MeterRegistry registry, CatalogDatabase database, Clock clock) {
    this.database = database;
    this.clock = clock;
    this.dbClock = DatabaseClock.of(database.vendor());
    this.completed = Counter.builder("lethe.purge.completed")
        .description("Cleanup jobs this process ran to SUCCEEDED").register(registry);
    this.failed = Counter.builder("lethe.purge.failed")
        .description("Cleanup jobs this process ended FAILED (attempts used up)").register(registry);
    this.filesDeleted = Counter.builder("lethe.purge.files.deleted")
        .description("Files deleted by cleanup jobs in this process").register(registry);
    Gauge.builder("lethe.purge.jobs.pending", this, m -> m.snapshot().counts().get(CleanupJobState.PENDING))
        // Micrometer holds a gauge's object weakly: nothing else may keep this one, and a collected gauge reads NaN
        .strongReference(true)
        .description("Cleanup jobs waiting for a worker, cluster-wide (read from the job table, at most once a second)")
        .register(registry);
    Gauge.builder("lethe.purge.jobs.running", this, m -> m.snapshot().counts().get(CleanupJobState.RUNNING)).strongReference(true)
        .description("Cleanup jobs leased by a worker now, cluster-wide").register(registry);
    Gauge.builder("lethe.purge.jobs.failed", this, m -> m.snapshot().counts().get(CleanupJobState.FAILED)).strongReference(true)
        .description("Cleanup jobs still FAILED, kept for an operator to retry, abandon or rescue, cluster-wide").register(registry);
    Gauge.builder("lethe.purge.oldest_pending_age_ms", this, m -> m.snapshot().oldestPendingAgeMs()).strongReference(true)
        .description("Age in ms of the oldest PENDING cleanup job on the database clock; 0 when none waits")
        .register(registry);
  }

  /** Counts a job that ended SUCCEEDED. */
  public void jobCompleted() {
    completed.increment();
  }

  /** Counts a job that ended FAILED. */
  public void jobFailed() {
    failed.increment();
  }

  /** Counts deleted files. */
  public void filesDeleted(long n) {
    if (n > 0) {
      filesDeleted.increment(n);
    }
  }

  private synchronized Snapshot snapshot() {
    long now = clock.millis();
    if (snapshot == null || now - snapshot.takenAt() >= SNAPSHOT_TTL_MS) {
      snapshot = database.background().withHandle(h -> {
        CleanupJobDao dao = new CleanupJobDao(h);
        OptionalLong oldest = dao.oldestPendingCreatedAt();
        long age = oldest.isPresent() ? Math.max(0, dbClock.millis(h) - oldest.getAsLong()) : 0;
        return new Snapshot(now, dao.countByState(), age);
      });
    }
    return snapshot;
  }
}
