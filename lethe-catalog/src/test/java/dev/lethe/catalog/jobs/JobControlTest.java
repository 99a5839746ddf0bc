package dev.lethe.catalog.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.purge.PurgeJobRunner;
import dev.lethe.catalog.softdelete.JobEndings;
import dev.lethe.catalog.softdelete.JobRescueRefusedException;
import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import dev.lethe.catalog.softdelete.SoftDeletes;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Retry and run-now (docs/design/0440-job-control.md), abandon and rescue
 * (docs/design/0443-abandon-and-rescue.md) on every job state, on H2, PostgreSQL and MariaDB: the
 * states each allows change as said, every other is refused naming its state with the row
 * unchanged, and two threads racing one retry or one rescue leave exactly one winner.
 */
class JobControlTest {
  private static final String CATALOG = "cat-1";
  private static final long HOUR = 3_600_000L;

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private final AtomicInteger wakes = new AtomicInteger();

  private JobControl open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    return new JobControl(db, wakes::incrementAndGet, e -> {});
  }

  private IcebergCatalogs catalogs;
  private LetheCatalog catalog;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  /** A job of {@code CATALOG} set to {@code state}, with 3 attempts, an error and, if given, a wait until now + waitMs. */
  private long job(CleanupJobState state, Long waitMs) {
    String catalogId = catalog == null ? CATALOG : catalog.row().catalogId();
    return db.jdbi().inTransaction(h -> {
      long now = DatabaseClock.of(db.vendor()).millis(h);
      String name = "t" + System.nanoTime();
      long id = new CleanupJobDao(h).insert(new NewCleanupJob(CleanupObjectType.TABLE, "default", catalogId, "main", "db",
          name, "/w/db/" + name + "/metadata/1.json", "io", "x", "alice"), now - HOUR);
      h.createUpdate("UPDATE lethe_cleanup_job SET state = :s, attempts = 3, last_error = 'manifest unreadable', "
              + "heartbeat_at = :hb, next_attempt_at = :next WHERE job_id = :id")
          .bind("s", state.name())
          .bind("hb", state == CleanupJobState.RUNNING ? Long.valueOf(now) : null)
          .bind("next", waitMs == null ? null : Long.valueOf(now + waitMs))
          .bind("id", id)
          .execute();
      return id;
    });
  }

  private List<?> claims(long id) {
    List<?> held = db.jdbi().withHandle(h -> LocationClaims.held(h, ClaimOwner.job(id)));
    return held;
  }

  private CleanupJob row(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  private static CleanupJobState[] allBut(CleanupJobState allowed) {
    return java.util.Arrays.stream(CleanupJobState.values()).filter(s -> s != allowed).toArray(CleanupJobState[]::new);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void retryPutsAFailedJobBackToPendingWithAttemptsResetAndNoBackoff(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.FAILED, HOUR);

    CleanupJob answered = control.retry(CATALOG, "main", id, "root");

    assertThat(answered.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(answered.attempts()).isZero();
    assertThat(answered.nextAttemptAt()).isNull();
    assertThat(answered.lastError()).isEqualTo("manifest unreadable");
    assertThat(row(id)).isEqualTo(answered);
    assertThat(wakes).hasValue(1);
    // a worker may claim it at once
    assertThat(JobClaimer.forDatabase(db).claim(60_000).orElseThrow().job().jobId()).isEqualTo(id);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void retryOfAJobInAnyOtherStateIsRefusedNamingTheStateAndChangesNothing(String backend) throws Exception {
    JobControl control = open(backend);
    for (CleanupJobState state : allBut(CleanupJobState.FAILED)) {
      long id = job(state, state == CleanupJobState.PENDING ? HOUR : null);
      CleanupJob before = row(id);

      assertThatThrownBy(() -> control.retry(CATALOG, "main", id, "root"))
          .isInstanceOfSatisfying(CleanupJobStateException.class, e -> assertThat(e.state()).isEqualTo(state))
          .hasMessage("Cannot retry cleanup job " + id + ": it is " + state + "; only a FAILED job can be retried");
      assertThat(row(id)).as(state.name()).isEqualTo(before);
    }
    assertThat(wakes).hasValue(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void runNowMakesAWaitingPendingJobClaimableAtOnce(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.PENDING, HOUR);
    assertThat(JobClaimer.forDatabase(db).claim(60_000)).isEmpty();

    CleanupJob answered = control.runNow(CATALOG, "main", id, "root");

    assertThat(answered.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(answered.attempts()).isEqualTo(3);
    assertThat(answered.nextAttemptAt()).isLessThanOrEqualTo(db.jdbi().withHandle(DatabaseClock.of(db.vendor())::millis));
    assertThat(JobClaimer.forDatabase(db).claim(60_000).orElseThrow().job().jobId()).isEqualTo(id);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void runNowOfAPendingJobNotWaitingAnswersItUnchanged(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.PENDING, null);
    CleanupJob before = row(id);

    assertThat(control.runNow(CATALOG, "main", id, "root")).isEqualTo(before);
    assertThat(row(id)).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void runNowOfAJobInAnyOtherStateIsRefusedNamingTheStateAndChangesNothing(String backend) throws Exception {
    JobControl control = open(backend);
    for (CleanupJobState state : allBut(CleanupJobState.PENDING)) {
      long id = job(state, null);
      CleanupJob before = row(id);

      assertThatThrownBy(() -> control.runNow(CATALOG, "main", id, "root"))
          .isInstanceOfSatisfying(CleanupJobStateException.class, e -> assertThat(e.state()).isEqualTo(state))
          .hasMessageContaining("it is " + state + "; only a PENDING job can be run now");
      assertThat(row(id)).as(state.name()).isEqualTo(before);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void anUnknownJobOrAnotherCatalogsJobIsNotFound(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.FAILED, null);

    assertThatThrownBy(() -> control.retry(CATALOG, "main", id + 1000, "root")).isInstanceOf(NoSuchCleanupJobException.class)
        .hasMessage("Cleanup job does not exist in catalog main: " + (id + 1000));
    assertThatThrownBy(() -> control.retry("cat-2", "other", id, "root")).isInstanceOf(NoSuchCleanupJobException.class);
    assertThatThrownBy(() -> control.runNow("cat-2", "other", id, "root")).isInstanceOf(NoSuchCleanupJobException.class);
    assertThat(row(id).state()).isEqualTo(CleanupJobState.FAILED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void retryIsRefusedWhileAnotherEntryOwnsTheJobsLocationAndChangesNothing(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.FAILED, null);
    CleanupJob before = row(id);
    // a job that FAILED before docs/design/0446-a-failed-job-keeps-its-locations.md holds no claims; since it
    // failed, another live owner (here a pending job) took a location inside the failed job's
    long other = job(CleanupJobState.PENDING, null);
    db.jdbi().useTransaction(h -> LocationClaims.acquire(h, CATALOG, ClaimOwner.job(other),
        TableRoots.assumedFromMetadataFile(before.metadataLocation().replace("/metadata/1.json", "/data/x.parquet")),
        0, "Cannot create db.t"));

    assertThatThrownBy(() -> control.retry(CATALOG, "main", id, "root")).isInstanceOf(AlreadyExistsException.class)
        .hasMessageStartingWith("Cannot retry cleanup job " + id);
    assertThat(row(id)).isEqualTo(before);
    assertThat(claims(id)).isEmpty();
    assertThat(wakes).hasValue(0);

    db.jdbi().useTransaction(h -> LocationClaims.release(h, ClaimOwner.job(other)));
    assertThat(control.retry(CATALOG, "main", id, "root").state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(claims(id)).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void twoThreadsRacingOneRetryLeaveExactlyOneWinner(String backend) throws Exception {
    JobControl control = open(backend);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        long id = job(CleanupJobState.FAILED, null);
        CyclicBarrier start = new CyclicBarrier(2);
        Callable<Boolean> retry = () -> {
          start.await(10, TimeUnit.SECONDS);
          try {
            control.retry(CATALOG, "main", id, "root");
            return true;
          } catch (CleanupJobStateException e) {
            assertThat(e.state()).isEqualTo(CleanupJobState.PENDING);
            return false;
          }
        };
        List<Future<Boolean>> both = new ArrayList<>(List.of(pool.submit(retry), pool.submit(retry)));
        int winners = 0;
        for (Future<Boolean> f : both) {
          winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).as("round %d", round).isEqualTo(1);
        assertThat(row(id).state()).isEqualTo(CleanupJobState.PENDING);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theFailedJobsGaugeGoesDownAfterARetry(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.FAILED, null);
    job(CleanupJobState.FAILED, null);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Instant[] now = {Instant.parse("2026-01-01T00:00:00Z")};
    Clock clock = new Clock() {
      @Override public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override public Instant instant() {
        return now[0];
      }
    };
    new PurgeMetrics(registry, db, clock);
    assertThat(registry.get("lethe.purge.jobs.failed").gauge().value()).isEqualTo(2.0);

    control.retry(CATALOG, "main", id, "root");
    now[0] = now[0].plusSeconds(2); // past the gauge's one-second snapshot

    assertThat(registry.get("lethe.purge.jobs.failed").gauge().value()).isEqualTo(1.0);
    assertThat(registry.get("lethe.purge.jobs.pending").gauge().value()).isEqualTo(1.0);
  }

  // ---- abandon and rescue (docs/design/0443-abandon-and-rescue.md) ----

  private static final String ADMIN = "root";
  private CredentialCipher cipher;
  private CleanupJobEnqueuer enqueuer;
  private JobEndings endings;

  /** The database, catalog {@code main} with namespace {@code db} under {@code tmp/warehouse}, and the services. */
  private CatalogRow openCatalog(String backend) throws Exception {
    open(backend);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(), Map.of());
    catalog = catalogs.catalog("main").orElseThrow();
    catalog.createNamespace(ParquetTables.NS, Map.of());
    cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
    enqueuer = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());
    endings = new JobEndings(db, new FileIOFactory(), () -> UUID.randomUUID().toString(), e -> {});
    return catalog.row();
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.of(ParquetTables.NS, name);
  }

  private static List<Path> filesUnder(String location) throws Exception {
    Path dir = Path.of(location.replaceFirst("^file:", ""));
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  private void setState(long id, CleanupJobState state) {
    db.jdbi().useTransaction(h -> {
      h.createUpdate("UPDATE lethe_cleanup_job SET state = :s, heartbeat_at = NULL WHERE job_id = :id")
          .bind("s", state.name()).bind("id", id).execute();
      if (!state.holdsLocations()) {
        LocationClaims.release(h, ClaimOwner.job(id)); // as the executor does when a job SUCCEEDED
      }
    });
  }

  private PurgeWorkerPool workers() {
    AsyncPurgeSettings s = new AsyncPurgeSettings(2, 2, 2, 20, 10_000, 3, 720, 20, 100);
    DeletePool deletes = new DeletePool(2, 2);
    PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db),
        new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, 100, n -> {}), e -> {}, null);
    closeables.add(0, deletes);
    closeables.add(0, pool);
    return pool;
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void abandonEndsAFailedJobAbandonedKeepingWhoWhenAndWhy(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    long id = job(CleanupJobState.FAILED, null);
    long before = db.jdbi().withHandle(DatabaseClock.of(db.vendor())::millis);

    CleanupJob answered = endings.abandon(main, id, ADMIN, "  removed s3://b/db/t by hand  ");

    assertThat(answered.state()).isEqualTo(CleanupJobState.ABANDONED);
    assertThat(answered.endedBy()).isEqualTo(ADMIN);
    assertThat(answered.endReason()).isEqualTo("removed s3://b/db/t by hand");
    assertThat(answered.endedAt()).isBetween(before, db.jdbi().withHandle(DatabaseClock.of(db.vendor())::millis));
    assertThat(answered.lastError()).isEqualTo("manifest unreadable");
    assertThat(row(id)).isEqualTo(answered);
    assertThat(receiptStates(id)).as("an abandoned job leaves a receipt").containsExactly("ABANDONED");
    CleanupReceipt receipt = db.jdbi().withHandle(h -> CleanupReceipts.find(h, main.catalogId(), id)).orElseThrow();
    assertThat(receipt.endedBy()).as("who ended it, on the receipt").isEqualTo(ADMIN);
    assertThat(receipt.endReason()).isEqualTo("removed s3://b/db/t by hand");
    assertThat(receipt.endedAt()).isEqualTo(answered.endedAt());
    assertThat(receipt.summary()).endsWith(", ended by " + ADMIN + " (removed s3://b/db/t by hand)");
  }

  private List<String> receiptStates(long jobId) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT state FROM lethe_cleanup_receipt WHERE job_id = :id")
        .bind("id", jobId).mapTo(String.class).list());
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void abandonOfAJobInAnyOtherStateIsRefusedNamingTheStateAndChangesNothing(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    for (CleanupJobState state : allBut(CleanupJobState.FAILED)) {
      long id = job(state, null);
      CleanupJob before = row(id);

      assertThatThrownBy(() -> endings.abandon(main, id, ADMIN, "gone"))
          .isInstanceOfSatisfying(CleanupJobStateException.class, e -> assertThat(e.state()).isEqualTo(state))
          .hasMessage("Cannot abandon cleanup job " + id + ": it is " + state + "; only a FAILED job can be abandoned");
      assertThat(row(id)).as(state.name()).isEqualTo(before);
    }
    assertThatThrownBy(() -> endings.abandon(main, 99_999, ADMIN, "gone")).isInstanceOf(NoSuchCleanupJobException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void abandonNeedsAReasonOfAtMost1024CharactersAndABadOneChangesNothing(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    long id = job(CleanupJobState.FAILED, null);
    CleanupJob before = row(id);
    for (String bad : java.util.Arrays.asList(null, "", "   ", "x".repeat(1025))) {
      assertThatThrownBy(() -> endings.abandon(main, id, ADMIN, bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Invalid reason");
      assertThat(row(id)).isEqualTo(before);
    }
    assertThatThrownBy(() -> endings.rescue(main, id, ADMIN, "x".repeat(1025))).isInstanceOf(IllegalArgumentException.class);
    assertThat(row(id)).isEqualTo(before);
    assertThat(endings.abandon(main, id, ADMIN, "é".repeat(1024)).endReason()).hasSize(1024);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void rescueOfAJobNotPendingOrFailedIsRefusedNamingTheStateAndChangesNothing(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    for (CleanupJobState state : CleanupJobState.values()) {
      long id = job(state, null);
      CleanupJob before = row(id);
      if (state == CleanupJobState.PENDING || state == CleanupJobState.FAILED) {
        // these states are allowed; the fake job's metadata file does not exist, so the file check refuses
        assertThatThrownBy(() -> endings.rescue(main, id, ADMIN, null)).isInstanceOf(JobRescueRefusedException.class)
            .hasMessageContaining("current metadata file").hasMessageContaining("is missing");
      } else {
        assertThatThrownBy(() -> endings.rescue(main, id, ADMIN, null))
            .isInstanceOfSatisfying(CleanupJobStateException.class, e -> assertThat(e.state()).isEqualTo(state))
            .hasMessage("Cannot rescue cleanup job " + id + ": it is " + state
                + "; only a PENDING or FAILED job can be rescued");
      }
      assertThat(row(id)).as(state.name()).isEqualTo(before);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void rescueOfAPendingJobPutsTheTableBackWithAllItsRowsAndTheJobNeverRuns(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    List<?> rows = ParquetTables.rows(table).stream().map(Object::toString).sorted().toList();
    List<Path> files = filesUnder(table.location());
    CleanupJob dropped = enqueuer.dropTable(main, id("t"), "alice");
    assertThat(catalog.tableExists(id("t"))).isFalse();

    CleanupJob answered = endings.rescue(main, dropped.jobId(), ADMIN, "dropped the wrong table");

    assertThat(answered.state()).isEqualTo(CleanupJobState.CANCELLED);
    assertThat(answered.endedBy()).isEqualTo(ADMIN);
    assertThat(answered.endReason()).isEqualTo("dropped the wrong table");
    assertThat(answered.endedAt()).isNotNull();
    assertThat(row(dropped.jobId())).isEqualTo(answered);
    assertThat(receiptStates(dropped.jobId())).as("a rescued job leaves a receipt").containsExactly("CANCELLED");
    CleanupReceipt receipt = db.jdbi().withHandle(h -> CleanupReceipts.find(h, main.catalogId(), dropped.jobId()))
        .orElseThrow();
    assertThat(receipt.endedBy()).isEqualTo(ADMIN);
    assertThat(receipt.endReason()).isEqualTo("dropped the wrong table");
    Table back = catalog.loadTable(id("t"));
    assertThat(back.location()).isEqualTo(table.location());
    assertThat(ParquetTables.rows(back).stream().map(Object::toString).sorted().toList()).isEqualTo(rows);
    assertThat(claims(dropped.jobId())).isEmpty();
    // workers started after the rescue never claim the job: every file stays
    PurgeWorkerPool pool = workers();
    pool.wakeUp();
    Awaitility.await("files kept").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
        .until(() -> filesUnder(table.location()).containsAll(files) && row(dropped.jobId()).state() == CleanupJobState.CANCELLED);
    assertThat(JobClaimer.forDatabase(db).claim(60_000)).isEmpty();
    // the table owns its location again: a table created into it is refused
    assertThatThrownBy(() -> catalog.buildTable(id("u"), ParquetTables.SCHEMA).withLocation(table.location() + "/inner").create())
        .isInstanceOf(AlreadyExistsException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void rescueAfterAFileWasDeletedIsRefusedAndChangesNothing(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String dataFile;
    try (var tasks = table.newScan().planFiles()) {
      dataFile = tasks.iterator().next().file().location();
    }
    CleanupJob dropped = enqueuer.dropTable(main, id("t"), "alice");
    Files.delete(Path.of(dataFile.replaceFirst("^file:", "")));
    CleanupJob before = row(dropped.jobId());
    List<?> held = claims(dropped.jobId());

    assertThatThrownBy(() -> endings.rescue(main, dropped.jobId(), ADMIN, null))
        .isInstanceOf(JobRescueRefusedException.class)
        .hasMessageContaining("Cannot rescue cleanup job " + dropped.jobId())
        .hasMessageContaining(dataFile.replaceFirst("^file:", "")).hasMessageContaining("is missing");

    assertThat(row(dropped.jobId())).isEqualTo(before);
    assertThat(claims(dropped.jobId())).isEqualTo(held).isNotEmpty();
    assertThat(catalog.tableExists(id("t"))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void rescueOfAFailedJobIsRefusedWhileATableHoldsTheNameAndWorksOnceItIsFree(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    long rowCount = ParquetTables.rows(table).size();
    CleanupJob dropped = enqueuer.dropTable(main, id("t"), "alice");
    setState(dropped.jobId(), CleanupJobState.FAILED);
    catalog.buildTable(id("t"), ParquetTables.SCHEMA).withLocation(tmp.resolve("warehouse").resolve("elsewhere").toString()).create();
    CleanupJob before = row(dropped.jobId());

    assertThatThrownBy(() -> endings.rescue(main, dropped.jobId(), ADMIN, null)).isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("table already exists: db.t");
    assertThat(row(dropped.jobId())).isEqualTo(before);
    assertThat(catalog.loadTable(id("t")).location()).isNotEqualTo(table.location());

    assertThat(catalog.dropTable(id("t"), false)).isTrue(); // metadata only
    assertThat(endings.rescue(main, dropped.jobId(), ADMIN, null).state()).isEqualTo(CleanupJobState.CANCELLED);
    assertThat(ParquetTables.rows(catalog.loadTable(id("t")))).hasSize((int) rowCount);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRescueLosesAgainstAWorkersClaimAndAClaimLosesAgainstARescue(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    CleanupJob seen = enqueuer.dropTable(main, id("t"), "alice");
    // a worker claims between the rescue's file check and its transaction: the guarded update changes nothing
    assertThat(JobClaimer.forDatabase(db).claim(60_000).orElseThrow().job().jobId()).isEqualTo(seen.jobId());
    boolean cancelled = db.jdbi().inTransaction(h -> new CleanupJobDao(h).cancelUnchanged(seen, ADMIN, null, 1L));
    assertThat(cancelled).isFalse();
    assertThatThrownBy(() -> endings.rescue(main, seen.jobId(), ADMIN, null))
        .isInstanceOfSatisfying(CleanupJobStateException.class, e -> assertThat(e.state()).isEqualTo(CleanupJobState.RUNNING));
    assertThat(row(seen.jobId()).state()).isEqualTo(CleanupJobState.RUNNING);

    catalog.createTable(id("u"), ParquetTables.SCHEMA);
    CleanupJob other = enqueuer.dropTable(main, id("u"), "alice");
    endings.rescue(main, other.jobId(), ADMIN, null);
    boolean claimed = db.jdbi().inTransaction(h -> new CleanupJobDao(h).claim(other.jobId(), Long.MAX_VALUE / 2, 0));
    assertThat(claimed).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void twoThreadsRacingOneRescueLeaveExactlyOneWinner(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 10; round++) {
        String name = "t" + round;
        Table table = catalog.createTable(id(name), ParquetTables.SCHEMA);
        ParquetTables.append(table, 0);
        long id = enqueuer.dropTable(main, id(name), "alice").jobId();
        CyclicBarrier start = new CyclicBarrier(2);
        Callable<Boolean> rescue = () -> {
          start.await(10, TimeUnit.SECONDS);
          try {
            endings.rescue(main, id, ADMIN, null);
            return true;
          } catch (CleanupJobStateException e) {
            assertThat(e.state()).isEqualTo(CleanupJobState.CANCELLED);
            return false;
          }
        };
        List<Future<Boolean>> both = new ArrayList<>(List.of(pool.submit(rescue), pool.submit(rescue)));
        int winners = 0;
        for (Future<Boolean> f : both) {
          winners += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).as("round %d", round).isEqualTo(1);
        assertThat(row(id).state()).isEqualTo(CleanupJobState.CANCELLED);
        assertThat(catalog.loadTable(id(name)).currentSnapshot()).isNotNull();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void abandonOfASoftDeletedTablesFailedPurgeFinalizesItsRecordAndReleasesTheNameNotBefore(String backend)
      throws Exception {
    CatalogRow main = openCatalog(backend);
    SoftDeletes softDeletes = new SoftDeletes(db, "default", new SoftDeleteSettings(true, HOUR, 60_000), cipher,
        new FileIOFactory(), () -> UUID.randomUUID().toString());
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    softDeletes.drop(main, id("t"), "alice", true);
    long jobId = softDeletes.purgeNow(main, id("t"), "alice").purgeJobId();
    setState(jobId, CleanupJobState.FAILED);
    // before: the retained deletion holds the name
    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA)).isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("retained (entity id");
    assertThat(softDeletes.list(main, ParquetTables.NS).orElseThrow()).hasSize(1);

    assertThat(endings.abandon(main, jobId, ADMIN, "deleted by hand").state()).isEqualTo(CleanupJobState.ABANDONED);

    assertThat(softDeletes.list(main, ParquetTables.NS).orElseThrow()).isEmpty();
    assertThat(db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM lethe_entity_deletion").mapTo(Long.class).one()).longValue())
        .isZero();
    assertThat(catalog.createTable(id("t"), ParquetTables.SCHEMA)).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theFailedJobsGaugeGoesDownAfterAnAbandon(String backend) throws Exception {
    CatalogRow main = openCatalog(backend);
    long id = job(CleanupJobState.FAILED, null);
    job(CleanupJobState.FAILED, null);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Instant[] now = {Instant.parse("2026-01-01T00:00:00Z")};
    Clock clock = new Clock() {
      @Override public ZoneOffset getZone() {
        return ZoneOffset.UTC;
      }

      @Override public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override public Instant instant() {
        return now[0];
      }
    };
    new PurgeMetrics(registry, db, clock);
    assertThat(registry.get("lethe.purge.jobs.failed").gauge().value()).isEqualTo(2.0);

    endings.abandon(main, id, ADMIN, "removed by hand");
    now[0] = now[0].plusSeconds(2); // past the gauge's one-second snapshot

    assertThat(registry.get("lethe.purge.jobs.failed").gauge().value()).isEqualTo(1.0);
  }
}
