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
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Retry and run-now (docs/design/0440-job-control.md) on every job state, on H2, PostgreSQL and
 * MariaDB: the one state each allows changes as said, every other is refused naming its state with
 * the row unchanged, and two threads racing one retry leave exactly one winner.
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
    return new JobControl(db, wakes::incrementAndGet);
  }

  @AfterEach
  void close() throws Exception {
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  /** A job of {@code CATALOG} set to {@code state}, with 3 attempts, an error and, if given, a wait until now + waitMs. */
  private long job(CleanupJobState state, Long waitMs) {
    return db.jdbi().inTransaction(h -> {
      long now = DatabaseClock.of(db.vendor()).millis(h);
      String name = "t" + System.nanoTime();
      long id = new CleanupJobDao(h).insert(new NewCleanupJob(CleanupObjectType.TABLE, "default", CATALOG, "main", "db",
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

    CleanupJob answered = control.retry(CATALOG, "main", id);

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

      assertThatThrownBy(() -> control.retry(CATALOG, "main", id))
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

    CleanupJob answered = control.runNow(CATALOG, "main", id);

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

    assertThat(control.runNow(CATALOG, "main", id)).isEqualTo(before);
    assertThat(row(id)).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void runNowOfAJobInAnyOtherStateIsRefusedNamingTheStateAndChangesNothing(String backend) throws Exception {
    JobControl control = open(backend);
    for (CleanupJobState state : allBut(CleanupJobState.PENDING)) {
      long id = job(state, null);
      CleanupJob before = row(id);

      assertThatThrownBy(() -> control.runNow(CATALOG, "main", id))
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

    assertThatThrownBy(() -> control.retry(CATALOG, "main", id + 1000)).isInstanceOf(NoSuchCleanupJobException.class)
        .hasMessage("Cleanup job does not exist in catalog main: " + (id + 1000));
    assertThatThrownBy(() -> control.retry("cat-2", "other", id)).isInstanceOf(NoSuchCleanupJobException.class);
    assertThatThrownBy(() -> control.runNow("cat-2", "other", id)).isInstanceOf(NoSuchCleanupJobException.class);
    assertThat(row(id).state()).isEqualTo(CleanupJobState.FAILED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void retryIsRefusedWhileAnotherEntryOwnsTheJobsLocationAndChangesNothing(String backend) throws Exception {
    JobControl control = open(backend);
    long id = job(CleanupJobState.FAILED, null);
    CleanupJob before = row(id);
    // since it FAILED, another live owner (here a pending job) took a location inside the failed job's
    long other = job(CleanupJobState.PENDING, null);
    db.jdbi().useTransaction(h -> LocationClaims.acquire(h, CATALOG, ClaimOwner.job(other),
        TableRoots.assumedFromMetadataFile(before.metadataLocation().replace("/metadata/1.json", "/data/x.parquet")),
        0, "Cannot create db.t"));

    assertThatThrownBy(() -> control.retry(CATALOG, "main", id)).isInstanceOf(AlreadyExistsException.class)
        .hasMessageStartingWith("Cannot retry cleanup job " + id);
    assertThat(row(id)).isEqualTo(before);
    assertThat(claims(id)).isEmpty();
    assertThat(wakes).hasValue(0);

    db.jdbi().useTransaction(h -> LocationClaims.release(h, ClaimOwner.job(other)));
    assertThat(control.retry(CATALOG, "main", id).state()).isEqualTo(CleanupJobState.PENDING);
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
            control.retry(CATALOG, "main", id);
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

    control.retry(CATALOG, "main", id);
    now[0] = now[0].plusSeconds(2); // past the gauge's one-second snapshot

    assertThat(registry.get("lethe.purge.jobs.failed").gauge().value()).isEqualTo(1.0);
    assertThat(registry.get("lethe.purge.jobs.pending").gauge().value()).isEqualTo(1.0);
  }
}
