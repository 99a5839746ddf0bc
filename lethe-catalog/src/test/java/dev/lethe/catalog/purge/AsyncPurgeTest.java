package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CasJobClaimer;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.LeaseHeartbeat;
import dev.lethe.catalog.jobs.PurgeEvent;
import dev.lethe.catalog.jobs.PurgeEventListener;
import dev.lethe.catalog.jobs.PurgeOutcome;
import dev.lethe.catalog.jobs.PurgeTransition;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The asynchronous purge on a real database (H2 always, PostgreSQL and MariaDB when configured)
 * with real Iceberg tables (Parquet data, position deletes, statistics) and real worker threads.
 */
class AsyncPurgeTest {
  private static final String SECRET = "s3-secret-key-do-not-leak";

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private LetheCatalog catalog;
  private CatalogRow row;
  private String gateName;
  private GatedFileIO.Gate gate;
  private CredentialCipher cipher;
  private CleanupJobEnqueuer enqueuer;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<PurgeEvent> events = new CopyOnWriteArrayList<>();

  private void open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    gateName = UUID.randomUUID().toString();
    gate = GatedFileIO.newGate(gateName);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(),
        Map.of("io-impl", GatedFileIO.class.getName(), "test.gate", gateName, "s3.secret-access-key", SECRET));
    catalog = catalogs.catalog("main").orElseThrow();
    row = catalog.row();
    catalog.createNamespace(ParquetTables.NS, Map.of());
    cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
    enqueuer = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (gate != null) {
      gate.open();
      GatedFileIO.GATES.remove(gateName);
    }
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  private PurgeWorkerPool pool(AsyncPurgeSettings s) {
    DeletePool deletes = new DeletePool(s.deleteThreads(), Math.max(1, s.deleteThreads()));
    PurgeJobRunner runner = new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, s.deleteBatchSize(), n -> {});
    PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db), runner, events::add, null);
    closeables.add(0, deletes);
    closeables.add(0, pool);
    return pool;
  }

  private static AsyncPurgeSettings fast(int workers, long heartbeatTimeoutMs, int maxAttempts) {
    return new AsyncPurgeSettings(workers, 2, 2, 20, heartbeatTimeoutMs, maxAttempts, 720, 20, 100);
  }

  private CleanupJob job(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  private static void await(String what, Duration timeout, BooleanSupplier condition) {
    Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(10)).until(condition::getAsBoolean);
  }

  /** Events are emitted just after the row is written: wait for them, then check the exact count. */
  private void assertEvents(Class<? extends PurgeEvent> type, int n) {
    Awaitility.await(n + " " + type.getSimpleName()).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
        .until(() -> events.stream().filter(type::isInstance).count() >= n);
    Awaitility.await("no more " + type.getSimpleName()).during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5))
        .until(() -> events.stream().filter(type::isInstance).count() == n);
  }

  private static List<Path> filesUnder(String location) throws IOException {
    Path dir = Path.of(location.replaceFirst("^file:", ""));
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  private TableIdentifier id(String name) {
    return TableIdentifier.of(ParquetTables.NS, name);
  }

  // ---- readiness (docs/design/0430-health-that-tells-the-truth.md) ----

  @org.junit.jupiter.api.Test
  void aPoolRunsUntilItIsClosed() throws Exception {
    open("h2");
    PurgeWorkerPool pool = pool(fast(2, 10_000, 3));
    assertThat(pool.isRunning()).isTrue();
    pool.close();
    assertThat(pool.isRunning()).isFalse();
  }

  // ---- enqueue ----

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void dropEnqueuesOnePendingJobWithTheMetadataLocationAndEncryptedProperties(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    String location = table.location();

    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    assertThat(catalog.tableExists(id("t"))).isFalse();
    CleanupJob stored = job(job.jobId());
    assertThat(stored.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(stored.objectType()).isEqualTo(CleanupObjectType.TABLE);
    assertThat(stored.metalakeName()).isEqualTo("default");
    assertThat(stored.catalogName()).isEqualTo("main");
    assertThat(stored.catalogId()).isEqualTo(row.catalogId());
    assertThat(stored.namespace()).isEqualTo(NamespaceNames.encode(ParquetTables.NS));
    assertThat(stored.objectName()).isEqualTo("t");
    assertThat(stored.metadataLocation()).isEqualTo(metadata);
    assertThat(stored.fileIoImpl()).isEqualTo(GatedFileIO.class.getName());
    assertThat(stored.attempts()).isZero();
    assertThat(stored.lastError()).isNull();
    assertThat(stored.heartbeatAt()).isNull();
    assertThat(stored.createdBy()).isEqualTo("alice");
    assertThat(stored.encryptedFileIoProperties()).doesNotContain(SECRET).doesNotContain("s3.secret-access-key");
    assertThat(cipher.decrypt(stored.encryptedFileIoProperties()).orElseThrow()).containsEntry("s3.secret-access-key", SECRET);
    assertThat(stored.toString()).doesNotContain(SECRET);
    assertThat(filesUnder(location)).isNotEmpty(); // nothing deleted on the request thread
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void repeatedDropThrowsNoSuchTableAndEnqueuesNothing(String backend) throws Exception {
    open(backend);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    enqueuer.dropTable(row, id("t"), "alice");

    assertThatThrownBy(() -> enqueuer.dropTable(row, id("t"), "alice")).isInstanceOf(NoSuchTableException.class);
    assertThatThrownBy(() -> catalog.loadTable(id("t"))).isInstanceOf(NoSuchTableException.class);
    assertThat(catalog.dropTable(id("t"), false)).isFalse();

    List<CleanupJob> all = db.jdbi().withHandle(h -> new CleanupJobDao(h).list(row.catalogId(), null, null, null, 100));
    assertThat(all).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void createRegisterAndRenameIntoAPurgingNameAreRefusedNamingTheJob(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    catalog.createTable(id("other"), ParquetTables.SCHEMA);
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + job.jobId());
    assertThatThrownBy(() -> catalog.registerTable(id("t"), metadata))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + job.jobId());
    assertThatThrownBy(() -> catalog.renameTable(id("other"), id("t")))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + job.jobId());
    assertThat(catalog.tableExists(id("other"))).isTrue();
    assertThat(catalog.tableExists(id("t"))).isFalse();

    pool(fast(1, 10_000, 3));
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);

    catalog.renameTable(id("other"), id("t"));
    assertThat(catalog.tableExists(id("t"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void workerDeletesEveryFileOfAMergeOnReadTableWithStatisticsOnceAndLastTheMetadata(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t",
        Map.of(TableProperties.DELETE_MODE, "merge-on-read", TableProperties.UPDATE_MODE, "merge-on-read"));
    assertThat(ParquetTables.metadata(table).statisticsFiles()).isNotEmpty();
    assertThat(ParquetTables.metadata(table).partitionStatisticsFiles()).isNotEmpty();
    String location = table.location();
    List<Path> before = filesUnder(location);
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    pool(fast(2, 10_000, 3));
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);

    assertThat(filesUnder(location)).isEmpty();
    assertThat(gate.deletes).hasSize(before.size());
    assertThat(gate.deletes.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertEvents(PurgeEvent.PurgeStarted.class, 1);
    // batches of delete-batch-size (2) files, one bulk call each
    assertThat(gate.callSizes).allSatisfy(n -> assertThat(n).isBetween(1, 2)).contains(2);
    assertEvents(PurgeEvent.PurgeCompleted.class, 1);
    // the end event carries the job as it ended, not as it was claimed
    assertThat(events).filteredOn(PurgeEvent.PurgeCompleted.class::isInstance).singleElement()
        .satisfies(e -> assertThat(e.job().state()).isEqualTo(CleanupJobState.SUCCEEDED));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2"})
  void gcDisabledKeepsDataAndDeleteFilesAndRemovesTheRest(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of(TableProperties.GC_ENABLED, "false"));
    String location = table.location();
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    pool(fast(1, 10_000, 3));
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);

    List<Path> left = filesUnder(location);
    assertThat(left).isNotEmpty().allSatisfy(p -> assertThat(p.toString()).endsWith(".parquet").contains("/data/"));
    assertThat(filesUnder(location + "/metadata")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void unparsableMetadataFailsAtOnceAndThenNoLongerBlocksTheName(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    Files.writeString(Path.of(metadata), "not json");
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    pool(fast(1, 10_000, 5));
    await("job to fail", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.FAILED);

    CleanupJob failed = job(job.jobId());
    assertThat(failed.attempts()).isEqualTo(1);
    assertThat(failed.lastError()).contains("cannot parse metadata file");
    assertThat(gate.totalDeletes()).isZero();
    assertEvents(PurgeEvent.PurgeFailed.class, 1);
    assertThat(events).filteredOn(PurgeEvent.PurgeFailed.class::isInstance).singleElement()
        .satisfies(e -> assertThat(e.job()).extracting(CleanupJob::state, CleanupJob::attempts, CleanupJob::lastError)
            .containsExactly(CleanupJobState.FAILED, 1, failed.lastError()));
    catalog.createTable(id("t"), ParquetTables.SCHEMA); // terminal jobs do not block
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2"})
  void missingMetadataWithNothingLeftEndsSucceeded(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String location = table.location();
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");
    try (Stream<Path> s = Files.walk(Path.of(location))) {
      s.sorted(java.util.Comparator.reverseOrder()).filter(Files::isRegularFile).forEach(p -> p.toFile().delete());
    }

    pool(fast(1, 10_000, 5));
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void transientFailuresRetryWithLastErrorUntilMaxAttemptsThenFail(String backend) throws Exception {
    open(backend);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    gate.failing = true;
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    pool(fast(1, 10_000, 3));
    await("job to fail", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.FAILED);

    CleanupJob failed = job(job.jobId());
    assertThat(failed.attempts()).isEqualTo(3);
    assertThat(failed.lastError()).startsWith("gave up after 3 attempts").contains("could not be deleted");
    assertThat(failed.heartbeatAt()).isNull();
    assertEvents(PurgeEvent.PurgeStarted.class, 3);
  }

  // ---- workers, leases, contention ----

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void poolsContendingForManyJobsClaimEachOnceAndDeleteEachFileOnce(String backend) throws Exception {
    open(backend);
    List<String> locations = new ArrayList<>();
    List<Long> jobIds = new ArrayList<>();
    int before = 0;
    for (int i = 0; i < 8; i++) {
      Table t = ParquetTables.createRichTable(catalog, "t" + i, Map.of());
      locations.add(t.location());
      before += filesUnder(t.location()).size();
    }
    for (int i = 0; i < 8; i++) {
      jobIds.add(enqueuer.dropTable(row, id("t" + i), "alice").jobId());
    }
    Map<Long, AtomicInteger> concurrentOwners = new ConcurrentHashMap<>();
    AtomicInteger overlap = new AtomicInteger();
    PurgeEventListener watch = e -> {
      if (e instanceof PurgeEvent.PurgeStarted) {
        if (concurrentOwners.computeIfAbsent(e.job().jobId(), k -> new AtomicInteger()).incrementAndGet() > 1) {
          overlap.incrementAndGet();
        }
      }
    };
    for (int p = 0; p < 3; p++) {
      DeletePool deletes = new DeletePool(2, 2);
      AsyncPurgeSettings s = fast(3, 10_000, 3);
      PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db),
          new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, 2, n -> {}), e -> { events.add(e); watch.onEvent(e); }, null);
      closeables.add(0, deletes);
      closeables.add(0, pool);
    }

    await("all jobs to succeed", Duration.ofSeconds(60), () -> jobIds.stream().allMatch(id -> job(id).state() == CleanupJobState.SUCCEEDED));

    assertThat(overlap.get()).isZero();
    assertEvents(PurgeEvent.PurgeStarted.class, 8);
    assertThat(gate.deletes).hasSize(before);
    assertThat(gate.deletes.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    for (String location : locations) {
      assertThat(filesUnder(location)).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void heartbeatKeepsTheLeaseWhileADeleteBatchBlocks(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String location = table.location();
    gate.close();
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");
    pool(fast(1, 600, 3));
    await("a delete to block", Duration.ofSeconds(30), () -> gate.blockedCalls.get() > 0);
    long firstBeat = job(job.jobId()).heartbeatAt();

    CasJobClaimer peer = new CasJobClaimer(db);
    Awaitility.await("a peer must not claim a job whose owner is alive").during(Duration.ofMillis(2000)).atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50)).until(() -> peer.claim(600).isEmpty());
    assertThat(job(job.jobId()).heartbeatAt()).isGreaterThan(firstBeat);
    assertThat(job(job.jobId()).state()).isEqualTo(CleanupJobState.RUNNING);

    gate.open();
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);
    assertThat(filesUnder(location)).isEmpty();
    assertEvents(PurgeEvent.PurgeStarted.class, 1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aFaultLastingTwoSecondsIsWaitedOutNotExhaustingMaxAttempts(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String location = table.location();
    gate.failUntilNanos = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");

    // waits of at least 0.5 s, 1 s, 2 s: three failed attempts already outlast the fault
    pool(new AsyncPurgeSettings(1, 2, 2, 20, 10_000, 5, 720, 1000, 4000));
    Awaitility.await("job to end").atMost(Duration.ofSeconds(60))
        .until(() -> !job(job.jobId()).state().active());

    CleanupJob done = job(job.jobId());
    assertThat(done.state()).as("last error: %s", done.lastError()).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(done.attempts()).isBetween(1, 3);
    assertThat(done.lastError()).as("an earlier attempt's error is not shown on a SUCCEEDED job").isNull();
    assertThat(filesUnder(location)).isEmpty();
    assertThat(events).filteredOn(e -> e instanceof PurgeEvent.PurgeFailed).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void neitherClaimerTakesAJobBeforeItsRetryWaitHasPassed(String backend) throws Exception {
    open(backend);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");
    List<JobClaimer> claimers = List.of(new CasJobClaimer(db), JobClaimer.forDatabase(db));
    JobClaimer.Claimed claimed = claimers.get(0).claim(60_000).orElseThrow();
    PurgeTransition.Write retry = (PurgeTransition.Write) PurgeTransition.next(claimed.job(),
        new PurgeOutcome.Transient("store down"), 5, attempts -> 3_600_000L);
    boolean written = db.jdbi().inTransaction(h -> claimed.lease().writeGuarded(
        last -> new CleanupJobDao(h).finish(job.jobId(), last, retry, DatabaseClock.of(db.vendor()).millis(h)), null));
    assertThat(written).isTrue();

    CleanupJob waiting = job(job.jobId());
    assertThat(waiting.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(waiting.nextAttemptAt()).isBetween(waiting.updatedAt() + 3_600_000L, waiting.updatedAt() + 3_600_000L);
    for (JobClaimer c : claimers) {
      assertThat(c.claim(60_000)).as(c.name()).isEmpty();
    }

    // once the wait is over (moved into the past here) either claimer takes it, and the claim clears the wait
    db.jdbi().useHandle(h -> h.execute("UPDATE lethe_cleanup_job SET next_attempt_at = 1 WHERE job_id = ?", job.jobId()));
    JobClaimer.Claimed again = claimers.get(1).claim(60_000).orElseThrow();
    assertThat(again.job().jobId()).isEqualTo(job.jobId());
    assertThat(again.job().nextAttemptAt()).isNull();
    assertThat(again.job().attempts()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aLostLeaseStopsTheWorkersDeletesAndWritesNothing(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    int files = filesUnder(table.location()).size();
    gate.close();
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");
    PurgeWorkerPool pool = pool(new AsyncPurgeSettings(1, 1, 1, 20, 300, 3, 720));
    await("a delete to block", Duration.ofSeconds(30), () -> gate.blockedCalls.get() > 0);

    // a peer takes over the job as if this process had stalled past the timeout
    db.jdbi().useHandle(h -> h.execute("UPDATE lethe_cleanup_job SET heartbeat_at = 1 WHERE job_id = ?", job.jobId()));
    JobClaimer.Claimed peer = new CasJobClaimer(db).claim(300).orElseThrow();
    assertThat(peer.job().jobId()).isEqualTo(job.jobId());
    LeaseHeartbeat peerHeartbeat = new LeaseHeartbeat(db, 100);
    closeables.add(peerHeartbeat);
    peerHeartbeat.track(peer.lease());
    await("the owner to notice", Duration.ofSeconds(10), () -> pool.ownedJobIds().isEmpty());
    gate.open();
    Awaitility.await("the stale owner to finish nothing").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
        .until(() -> job(job.jobId()).state() == CleanupJobState.RUNNING && events.stream()
            .noneMatch(e -> e instanceof PurgeEvent.PurgeCompleted || e instanceof PurgeEvent.PurgeFailed));

    CleanupJob after = job(job.jobId());
    assertThat(after.state()).isEqualTo(CleanupJobState.RUNNING);
    assertThat(peer.lease().lost()).isFalse();
    assertThat(after.heartbeatAt()).isGreaterThanOrEqualTo(peer.lease().lastWritten() - 1000);
    // only the batches already inside a delete call went through: one per delete thread plus the caller
    assertThat(gate.totalDeletes()).isLessThanOrEqualTo(2).isLessThan(files);
    assertThat(events).filteredOn(e -> e instanceof PurgeEvent.PurgeCompleted || e instanceof PurgeEvent.PurgeFailed).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2"})
  void closingAPoolMidJobHandsTheJobBackPendingWithoutCountingAnAttempt(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String location = table.location();
    gate.close();
    CleanupJob job = enqueuer.dropTable(row, id("t"), "alice");
    DeletePool deletes = new DeletePool(1, 1);
    closeables.add(deletes);
    PurgeWorkerPool pool = new PurgeWorkerPool(db, new AsyncPurgeSettings(1, 1, 1, 20, 60_000, 3, 720), JobClaimer.forDatabase(db),
        new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, 1, n -> {}), events::add, null);
    await("a delete to block", Duration.ofSeconds(30), () -> gate.blockedCalls.get() > 0);

    Thread closer = new Thread(pool::close);
    closer.start();
    Awaitility.await("close to stay blocked on the held delete").pollDelay(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5))
        .until(closer::isAlive);
    gate.open();
    closer.join(30_000);

    CleanupJob released = job(job.jobId());
    assertThat(released.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(released.attempts()).isZero();
    assertThat(released.heartbeatAt()).isNull();
    assertThat(filesUnder(location)).isNotEmpty();
    pool(fast(1, 60_000, 3)); // another pool takes it over at once, no heartbeat timeout to wait for
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);
    assertThat(filesUnder(location)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void terminalJobsOlderThanTheRetentionArePruned(String backend) throws Exception {
    open(backend);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    ParquetTables.createRichTable(catalog, "u", Map.of());
    CleanupJob done = enqueuer.dropTable(row, id("t"), "alice");
    CleanupJob pending = enqueuer.dropTable(row, id("u"), "alice");
    db.jdbi().useHandle(h -> h.execute("UPDATE lethe_cleanup_job SET state = 'SUCCEEDED', updated_at = 1 WHERE job_id = ?", done.jobId()));
    db.jdbi().useHandle(h -> h.execute("UPDATE lethe_cleanup_job SET updated_at = 1 WHERE job_id = ?", pending.jobId()));

    int pruned = db.jdbi().withHandle(h -> new CleanupJobDao(h).pruneTerminal(1000));

    assertThat(pruned).isEqualTo(1);
    java.util.Optional<CleanupJob> gone = db.jdbi().withHandle(h -> new CleanupJobDao(h).find(done.jobId()));
    java.util.Optional<CleanupJob> kept = db.jdbi().withHandle(h -> new CleanupJobDao(h).find(pending.jobId()));
    assertThat(gone).isEmpty();
    assertThat(kept).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void claimStrategyIsSkipLockedWhereTheDatabaseHasIt(String backend) throws Exception {
    open(backend);
    assertThat(JobClaimer.forDatabase(db).name()).isEqualTo(backend.equals("h2") ? "cas" : "skip-locked");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void droppedViewsMetadataIsRemovedByAViewJob(String backend) throws Exception {
    open(backend);
    catalog.buildView(id("v")).withSchema(ParquetTables.SCHEMA).withDefaultNamespace(ParquetTables.NS)
        .withQuery("spark", "select 1").create();
    String metadata = ((org.apache.iceberg.view.BaseView) catalog.loadView(id("v"))).operations().current().metadataFileLocation();
    CleanupJob job = enqueuer.dropView(row, id("v"), "alice");
    assertThat(job.objectType()).isEqualTo(CleanupObjectType.VIEW);
    assertThatThrownBy(() -> catalog.buildView(id("v")).withSchema(ParquetTables.SCHEMA).withDefaultNamespace(ParquetTables.NS)
        .withQuery("spark", "select 1").create()).isInstanceOf(AlreadyExistsException.class);

    pool(fast(1, 10_000, 3));
    await("job to succeed", Duration.ofSeconds(30), () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);
    assertThat(Path.of(metadata)).doesNotExist();
  }
}
