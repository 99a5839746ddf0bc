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
 * purge.jobs.pending}, {@code purge.jobs.running}, {@code purge.jobs.failed} and {@code
 * purge.oldest_pending_age_ms} read from the job table (cluster-wide, at most once per second),
 * counters {@code purge.completed}, {@code purge.failed} and {@code purge.files.deleted} counted by
 * this process.
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
    this.completed = Counter.builder("purge.completed").description("Cleanup jobs that ended SUCCEEDED").register(registry);
    this.failed = Counter.builder("purge.failed").description("Cleanup jobs that ended FAILED").register(registry);
    this.filesDeleted = Counter.builder("purge.files.deleted").description("Files deleted by cleanup jobs").register(registry);
    Gauge.builder("purge.jobs.pending", this, m -> m.snapshot().counts().get(CleanupJobState.PENDING)).register(registry);
    Gauge.builder("purge.jobs.running", this, m -> m.snapshot().counts().get(CleanupJobState.RUNNING)).register(registry);
    Gauge.builder("purge.jobs.failed", this, m -> m.snapshot().counts().get(CleanupJobState.FAILED)).register(registry);
    Gauge.builder("purge.oldest_pending_age_ms", this, m -> m.snapshot().oldestPendingAgeMs()).register(registry);
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
