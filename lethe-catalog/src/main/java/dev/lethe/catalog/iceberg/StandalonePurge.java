package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.LoggingPurgeEventListener;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.PurgeMetrics;
import dev.lethe.catalog.jobs.SynchronousPurge;
import dev.lethe.catalog.jobs.TablePurge;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.PurgeJobRunner;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The synchronous purge of catalogs used without a server (tests, tools): the same durable purge
 * job as a server's (docs/design/0051-synchronous-purge-is-a-durable-job.md), on an executor and a
 * delete pool of its own, with no worker threads, a random credential key (jobs use their catalog's
 * current properties), meters registered nowhere and events logged. A job a failed attempt leaves
 * {@code PENDING} waits for a server's workers.
 */
final class StandalonePurge implements TablePurge, AutoCloseable {
  private final DeletePool deletePool;
  private final PurgeJobExecutor executor;
  private final SynchronousPurge synchronous;

  StandalonePurge(CatalogDatabase database, String metalakeName, Clock clock) {
    AsyncPurgeSettings d = AsyncPurgeSettings.DEFAULTS;
    AsyncPurgeSettings settings = new AsyncPurgeSettings(0, d.deleteThreads(), d.deleteBatchSize(), d.pollIntervalMs(),
        d.heartbeatTimeoutMs(), d.maxAttempts(), d.retentionHours(), d.initialBackoffMs(), d.maxBackoffMs());
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    CredentialCipher cipher = new CredentialCipher(key);
    FileIOFactory fileIOFactory = new FileIOFactory();
    PurgeMetrics metrics = new PurgeMetrics(new SimpleMeterRegistry(), database, clock);
    this.deletePool = DeletePool.of(settings);
    this.executor = new PurgeJobExecutor(database, settings, new PurgeJobRunner(database, cipher, fileIOFactory, deletePool,
        settings.deleteBatchSize(), metrics::filesDeleted), new LoggingPurgeEventListener(), metrics);
    this.synchronous = new SynchronousPurge(new CleanupJobEnqueuer(database, metalakeName, cipher, fileIOFactory), executor,
        () -> { });
  }

  @Override
  public PurgeJobExecutor.Finished purgeTable(CatalogRow catalog, TableIdentifier id, String createdBy) {
    return synchronous.purgeTable(catalog, id, createdBy);
  }

  /** Asks purges in flight to stop, then stops the heartbeat and the delete pool. */
  @Override
  public void close() {
    executor.requestStopAll();
    try {
      executor.close();
    } finally {
      deletePool.close();
    }
  }
}
