package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.util.ThreadPools;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one heartbeat task of a process (docs/design/0201-cleanup-jobs.md §5): every {@code heartbeat-timeout/3} it
 * renews each owned lease with a compare-and-set on the value it last wrote, on its own thread, so
 * a worker blocked in a delete never lets its lease go stale. A failed compare marks the lease lost.
 */
public final class LeaseHeartbeat implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseHeartbeat.class);

  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final Map<Long, Lease> owned = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;

  /**
   * Starts the task.
   *
   * @param intervalMs renewal period, ms
   */
  public LeaseHeartbeat(CatalogDatabase database, long intervalMs) {
    this.database = database;
    this.clock = DatabaseClock.of(database.vendor());
    this.timer = ThreadPools.newScheduledPool("lethe-purge-heartbeat", 1); // one named daemon thread
    timer.scheduleWithFixedDelay(this::renewAll, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  /** Starts renewing a lease. */
  public void track(Lease lease) {
    owned.put(lease.jobId(), lease);
  }

  /** Stops renewing a lease (the job finished or was lost). */
  public void release(Lease lease) {
    owned.remove(lease.jobId(), lease);
  }

  /** Asks every worker holding a lease to stop between batches (graceful shutdown). */
  public void requestStopAll() {
    owned.values().forEach(Lease::requestStop);
  }

  /** Ids currently renewed. */
  public java.util.Set<Long> ownedJobIds() {
    return java.util.Set.copyOf(owned.keySet());
  }

  /** One renewal round; public for tests that drive it directly. */
  public void renewAll() {
    for (Lease lease : owned.values()) {
      try {
        renew(lease);
      } catch (RuntimeException e) {
        // a database hiccup: keep the lease, the next round retries (two rounds may be missed)
        LOG.warn("Cannot renew heartbeat of cleanup job {}: {}", lease.jobId(), e.toString());
      }
    }
  }

  private void renew(Lease lease) {
    database.background().useHandle(h -> {
      long now = clock.millis(h);
      boolean kept = lease.writeGuarded(last -> new CleanupJobDao(h).renewHeartbeat(lease.jobId(), last, now), now);
      if (!kept) {
        owned.remove(lease.jobId(), lease);
        LOG.warn("Lost the lease of cleanup job {}: another worker claimed it; stopping its deletes", lease.jobId());
      }
    });
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
