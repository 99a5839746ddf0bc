package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.NewCleanupJob;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.purge.PurgeJobRunner;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyClaimed;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.EnqueuePurge;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeTarget;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Gone;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NotClaimable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RemoveMetadata;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The expiry of soft deletions on a real database with real Parquet tables and real purge workers:
 * claim (job or metadata-only removal), finalization only after {@code SUCCEEDED}, a failed job
 * keeping the name, purge-now, stale generations, two replicas claiming at once, and the timer.
 */
class SoftDeleteExpiryTest extends SoftDeleteFixture {
  private CleanupJob job(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  private long count(String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  private Optional<DeletionRecord> record(String deletionId) {
    return db.jdbi().withHandle(h -> new DeletionDao(h).find(deletionId));
  }

  private PurgeWorkerPool workers() {
    AsyncPurgeSettings s = new AsyncPurgeSettings(1, 2, 100, 20, 60_000, 2, 720);
    DeletePool deletes = new DeletePool(s.deleteThreads(), s.deleteThreads());
    PurgeJobRunner runner = new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, s.deleteBatchSize(), n -> {});
    PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db), runner, e -> {}, null);
    closeables.add(0, deletes);
    closeables.add(0, pool);
    return pool;
  }

  private static void await(String what, BooleanSupplier condition) {
    Awaitility.await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void expiredRecordWithPurgeGetsOneJobThenFilesGoThenFinalizationFreesTheName(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    String location = table.location();
    SoftDeletes sd = softDeletes(true, 0);
    DeletionRecord r = drop(sd, "t", true);

    List<SoftDeletes.Claimed> claimed = sd.expireDue(10);

    assertThat(claimed).hasSize(1);
    assertThat(claimed.get(0).decision()).isInstanceOf(EnqueuePurge.class);
    long jobId = claimed.get(0).purgeJobId();
    DeletionRecord purging = record(r.deletionId()).orElseThrow();
    assertThat(purging.state()).isEqualTo(DeletionState.PURGING);
    assertThat(purging.purgeJobId()).isEqualTo(jobId);
    CleanupJob job = job(jobId);
    assertThat(job.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(job.objectType()).isEqualTo(CleanupObjectType.TABLE);
    assertThat(job.metadataLocation()).isEqualTo(metadata);
    assertThat(job.namespace()).isEqualTo(NamespaceNames.encode(ParquetTables.NS));
    assertThat(job.objectName()).isEqualTo("t");
    assertThat(job.createdBy()).isEqualTo("alice");
    assertThat(job.encryptedFileIoProperties()).doesNotContain("do-not-leak");
    assertThat(cipher.decrypt(job.encryptedFileIoProperties()).orElseThrow()).containsEntry("s3.secret-access-key", "do-not-leak");
    assertThat(sd.expireDue(10)).as("no second job").isEmpty();
    assertThat(sd.restore(row, id("t"))).isInstanceOf(Gone.class);
    DeletedTable listed = sd.load(row, id("t")).orElseThrow();
    assertThat(listed.purgeJobState()).isEqualTo(CleanupJobState.PENDING);
    assertThat(listed.recoverable()).isFalse();
    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + jobId);
    assertThat(sd.finalizeSucceeded(10)).as("not before SUCCEEDED").isZero();

    workers();
    await("job to succeed", () -> job(jobId).state() == CleanupJobState.SUCCEEDED);
    assertThat(filesUnder(location)).isEmpty();
    assertThat(sd.finalizeSucceeded(10)).isEqualTo(1);

    assertThat(record(r.deletionId())).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM lethe_table")).isZero();
    assertThat(sd.load(row, id("t"))).isEmpty();
    assertThat(sd.restore(row, id("t"))).as("after purge").isInstanceOf(SoftDeletePlanner.NoRetainedDeletion.class);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    assertThat(catalog.tableExists(id("t"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void expiredRecordWithoutPurgeRemovesRowAndRecordAtOnceAndKeepsEveryFile(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    Set<Path> files = filesUnder(table.location());
    SoftDeletes sd = softDeletes(true, 0);
    DeletionRecord r = drop(sd, "t", false);

    List<SoftDeletes.Claimed> claimed = sd.expireDue(10);

    assertThat(claimed).hasSize(1);
    assertThat(claimed.get(0).decision()).isEqualTo(new RemoveMetadata(r, true));
    assertThat(record(r.deletionId())).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM lethe_table")).isZero();
    assertThat(count("SELECT COUNT(*) FROM lethe_cleanup_job")).as("no job: nothing to delete").isZero();
    assertThat(filesUnder(table.location())).isEqualTo(files);
    Table again = catalog.registerTable(id("t"), metadata); // the metadata-only drop's files can be registered again
    assertThat(ParquetTables.rows(again)).isNotEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void failedJobLeavesTheRecordPurgingTheNameReservedAndShowsTheJobState(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    SoftDeletes sd = softDeletes(true, 0);
    DeletionRecord r = drop(sd, "t", true);
    long jobId = sd.expireDue(10).get(0).purgeJobId();
    Files.writeString(Path.of(metadata), "{ not metadata"); // the worker cannot parse it: terminal failure

    workers();
    await("job to fail", () -> job(jobId).state() == CleanupJobState.FAILED);

    assertThat(sd.finalizeSucceeded(10)).isZero();
    DeletedTable listed = sd.load(row, id("t")).orElseThrow();
    assertThat(listed.record().state()).isEqualTo(DeletionState.PURGING);
    assertThat(listed.purgeJobState()).isEqualTo(CleanupJobState.FAILED);
    assertThat(sd.restore(row, id("t"))).isInstanceOf(Gone.class);
    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId());
    int pruned = db.jdbi().withHandle(h -> new CleanupJobDao(h).pruneTerminal(Long.MAX_VALUE));
    assertThat(pruned).isZero();
    assertThat(job(jobId).state()).as("a job a record points at is never pruned").isEqualTo(CleanupJobState.FAILED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void purgeNowClaimsBeforeTheDeadlineOnceAndNeedsARetainedDeletion(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    catalog.createTable(id("keep"), ParquetTables.SCHEMA);
    SoftDeletes sd = softDeletes(true, DAY);
    DeletionRecord r = drop(sd, "t", true);
    drop(sd, "keep", false);

    SoftDeletes.Claimed first = sd.purgeNow(row, id("t"), "root");
    SoftDeletes.Claimed second = sd.purgeNow(row, id("t"), "root");

    assertThat(first.decision()).isInstanceOf(EnqueuePurge.class);
    assertThat(job(first.purgeJobId()).createdBy()).isEqualTo("root");
    assertThat(second.decision()).isInstanceOf(AlreadyClaimed.class);
    assertThat(second.purgeJobId()).isEqualTo(first.purgeJobId());
    assertThat(count("SELECT COUNT(*) FROM lethe_cleanup_job")).isEqualTo(1);
    assertThat(record(r.deletionId()).orElseThrow().state()).isEqualTo(DeletionState.PURGING);
    assertThat(sd.purgeNow(row, id("none"), "root").decision()).isInstanceOf(NotClaimable.class);
    assertThat(sd.purgeNow(row, id("keep"), "root").decision()).isInstanceOf(RemoveMetadata.class);
    assertThat(sd.expireDue(10)).as("the other record is not expired").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRestoredAndDroppedAgainTableIsNeverTouchedByTheFirstGenerationsClaimOrJob(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    List<org.apache.iceberg.data.Record> rows = ParquetTables.rows(table);
    Set<Path> files = filesUnder(table.location());
    DeletionRecord first = drop(softDeletes(true, DAY), "t", true);
    List<String> staleCandidates = List.of(first.deletionId()); // read by a timer before the restore
    assertThat(softDeletes(true, DAY).restore(row, id("t"))).isInstanceOf(Restore.class);
    SoftDeletes expiring = softDeletes(true, 0);
    DeletionRecord second = drop(expiring, "t", true); // expired at once: a claim that followed the table would take it
    long firstGenerationJob = db.jdbi().withHandle(h -> {
      long id = new CleanupJobDao(h).insert(new NewCleanupJob(CleanupObjectType.TABLE, "default", row.catalogId(), "main",
          NamespaceNames.encode(ParquetTables.NS), "t", ParquetTables.metadata(table).metadataFileLocation(), "impl", "x",
          "alice"), 1L);
      h.createUpdate("UPDATE lethe_cleanup_job SET state = 'SUCCEEDED' WHERE job_id = :id").bind("id", id).execute();
      return id;
    });

    assertThat(expiring.claimAll(staleCandidates)).isEmpty();
    assertThat(expiring.finalizeOne(new FinalizeTarget(first.entityId(), first.deletionId(), firstGenerationJob))).isFalse();
    assertThat(expiring.finalizeOne(new FinalizeTarget(second.entityId(), second.deletionId(), firstGenerationJob))).isFalse();

    assertThat(record(second.deletionId())).contains(second);
    assertThat(expiring.load(row, id("t")).orElseThrow().record()).isEqualTo(second);
    assertThat(filesUnder(table.location())).isEqualTo(files);
    assertThat(count("SELECT COUNT(*) FROM lethe_cleanup_job")).isEqualTo(1);
    // generation 2 is still whole: restoring it (past its deadline only by the test's retention) needs a fresh record
    db.jdbi().useHandle(h -> h.createUpdate("UPDATE lethe_entity_deletion SET retention_expires_at = :far WHERE deletion_id = :d")
        .bind("far", Long.MAX_VALUE).bind("d", second.deletionId()).execute());
    assertThat(expiring.restore(row, id("t"))).isInstanceOf(Restore.class);
    assertThat(ParquetTables.rows(catalog.loadTable(id("t")))).containsExactlyInAnyOrderElementsOf(rows);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void twoReplicasClaimingTheSameExpiredRecordsEnqueueExactlyOneJobEach(String backend) throws Exception {
    open(backend);
    int n = 20;
    SoftDeletes a = softDeletes(true, 0);
    for (int i = 0; i < n; i++) {
      catalog.createTable(id("t" + i), ParquetTables.SCHEMA);
      drop(a, "t" + i, true);
    }
    CatalogDatabase second = CatalogDatabase.open(settings);
    closeables.add(second);
    SoftDeletes b = new SoftDeletes(second, "default", new SoftDeleteSettings(true, 0, 1000), cipher, new FileIOFactory(),
        () -> java.util.UUID.randomUUID().toString());

    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger claims = new AtomicInteger();
    List<Future<?>> runs = new ArrayList<>();
    for (SoftDeletes replica : List.of(a, b)) {
      runs.add(pool.submit(() -> {
        go.await();
        // an empty round may only mean the other replica held those records: stop when none is left
        while (count("SELECT COUNT(*) FROM lethe_entity_deletion WHERE state = 'DELETED'") > 0) {
          claims.addAndGet(replica.expireDue(3).size());
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : runs) {
      f.get();
    }
    pool.shutdown();

    assertThat(claims.get()).isEqualTo(n);
    assertThat(count("SELECT COUNT(*) FROM lethe_cleanup_job")).isEqualTo(n);
    assertThat(count("SELECT COUNT(DISTINCT object_name) FROM lethe_cleanup_job")).isEqualTo(n);
    assertThat(count("SELECT COUNT(*) FROM lethe_entity_deletion WHERE state = 'PURGING'")).isEqualTo(n);
    Set<Long> jobIds = new HashSet<>(db.jdbi().withHandle(h ->
        h.createQuery("SELECT purge_job_id FROM lethe_entity_deletion").mapTo(Long.class).list()));
    assertThat(jobIds).hasSize(n);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void timerExpiresWakesTheWorkersAndFinalizesWithoutAnyCall(String backend) throws Exception {
    open(backend);
    Table purged = ParquetTables.createRichTable(catalog, "purged", Map.of());
    Table kept = ParquetTables.createRichTable(catalog, "kept", Map.of());
    Set<Path> keptFiles = filesUnder(kept.location());
    String purgedLocation = purged.location();
    String keptLocation = kept.location();
    SoftDeletes sd = new SoftDeletes(db, "default", new SoftDeleteSettings(true, 300, 50), cipher, new FileIOFactory(),
        () -> java.util.UUID.randomUUID().toString());
    drop(sd, "purged", true);
    drop(sd, "kept", false);
    PurgeWorkerPool workers = workers();
    AtomicInteger wakeUps = new AtomicInteger();
    closeables.add(0, new SoftDeleteExpiry(sd, () -> {
      wakeUps.incrementAndGet();
      workers.wakeUp();
    }));

    await("both deletions to be gone", () -> count("SELECT COUNT(*) FROM lethe_entity_deletion") == 0);

    assertThat(count("SELECT COUNT(*) FROM lethe_table")).isZero();
    assertThat(filesUnder(purgedLocation)).isEmpty();
    assertThat(filesUnder(keptLocation)).isEqualTo(keptFiles);
    assertThat(wakeUps.get()).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM lethe_cleanup_job WHERE state = 'SUCCEEDED'")).isEqualTo(1);
  }
}
