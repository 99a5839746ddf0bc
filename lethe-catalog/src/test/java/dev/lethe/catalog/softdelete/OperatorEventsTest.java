package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.drop.ProtectionControl;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupJobStateException;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.jobs.Holds;
import dev.lethe.catalog.jobs.JobControl;
import dev.lethe.catalog.jobs.NewCleanupJob;
import dev.lethe.catalog.jobs.OperatorEvent;
import dev.lethe.catalog.jobs.PurgeEvent;
import dev.lethe.catalog.jobs.PurgeEventListener;
import dev.lethe.catalog.purge.ParquetTables;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Operator events (docs/design/0447-operator-events.md) on H2, PostgreSQL and MariaDB: each
 * operator action that changed something is told to the listener exactly once, with who, when and
 * why, after its transaction committed (the listener reads the change from another connection);
 * a refused action, a no-op and the loser of a race tell nothing; a listener that throws does not
 * fail the action; no event prints the catalog's FileIO secret.
 */
class OperatorEventsTest extends HoldFixture {
  private static final long HOUR = 3_600_000L;
  private static final String NS = NamespaceNames.encode(ParquetTables.NS);

  /** An event and what another connection read when it arrived. */
  private record Told(OperatorEvent event, Object committed) {}

  private final List<Told> told = Collections.synchronizedList(new ArrayList<>());
  private JobControl control;
  private JobEndings endings;
  private Holds holdsTold;
  private ProtectionControl protections;

  /** A listener that reads, on its own connection, the state the event's action should have committed. */
  private final PurgeEventListener recording = new PurgeEventListener() {
    @Override
    public void onEvent(PurgeEvent event) {}

    @Override
    public void onOperatorEvent(OperatorEvent event) {
      told.add(new Told(event, committedState(event)));
    }
  };

  private static final PurgeEventListener THROWING = new PurgeEventListener() {
    @Override
    public void onEvent(PurgeEvent event) {}

    @Override
    public void onOperatorEvent(OperatorEvent event) {
      throw new IllegalStateException("listener broke on " + event);
    }
  };

  private void openServices(String backend, PurgeEventListener listener) throws Exception {
    openHolds(backend);
    control = new JobControl(db, () -> {}, listener);
    endings = new JobEndings(db, new FileIOFactory(), () -> UUID.randomUUID().toString(), listener);
    holdsTold = new Holds(db, () -> UUID.randomUUID().toString(), () -> {}, listener);
    protections = new ProtectionControl(db, Clock.systemUTC(), listener);
  }

  /** What a fresh connection sees of the event's object: a job's state, a hold's release, a protection's presence. */
  private Object committedState(OperatorEvent event) {
    return db.jdbi().withHandle(h -> {
      if (event instanceof OperatorEvent.JobRetried e) {
        return new CleanupJobDao(h).find(e.job().jobId()).orElseThrow().state();
      } else if (event instanceof OperatorEvent.JobRunNow e) {
        return new CleanupJobDao(h).find(e.job().jobId()).orElseThrow().nextAttemptAt();
      } else if (event instanceof OperatorEvent.JobAbandoned e) {
        return new CleanupJobDao(h).find(e.job().jobId()).orElseThrow().state();
      } else if (event instanceof OperatorEvent.JobRescued e) {
        return new CleanupJobDao(h).find(e.job().jobId()).orElseThrow().state();
      } else if (event instanceof OperatorEvent.HoldPlaced e) {
        return new HoldDao(h).list(row.catalogId(), false).contains(e.hold());
      } else if (event instanceof OperatorEvent.HoldReleased e) {
        return new HoldDao(h).list(row.catalogId(), true).contains(e.hold());
      } else if (event instanceof OperatorEvent.ProtectionSet e) {
        return new ProtectionDao(h).list(row.catalogId()).contains(e.protection());
      } else {
        return new ProtectionDao(h).list(row.catalogId()).isEmpty();
      }
    });
  }

  private long dbNow() {
    return db.jdbi().withHandle(h -> DatabaseClock.of(db.vendor()).millis(h));
  }

  /** A table job of {@code main} in {@code state}, with 3 attempts and, if given, a wait until now + waitMs. */
  private long job(CleanupJobState state, Long waitMs) {
    return db.jdbi().inTransaction(h -> {
      long now = DatabaseClock.of(db.vendor()).millis(h);
      String name = "t" + System.nanoTime();
      long id = new CleanupJobDao(h).insert(new NewCleanupJob(CleanupObjectType.TABLE, "default", row.catalogId(), "main",
          NS, name, "/w/db/" + name + "/metadata/1.json", "io", "x", "alice"), now - HOUR);
      h.createUpdate("UPDATE lethe_cleanup_job SET state = :s, attempts = 3, last_error = 'manifest unreadable', "
              + "next_attempt_at = :next WHERE job_id = :id")
          .bind("s", state.name())
          .bind("next", waitMs == null ? null : Long.valueOf(now + waitMs))
          .bind("id", id)
          .execute();
      return id;
    });
  }

  private CleanupJob row(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  private List<OperatorEvent> events() {
    synchronized (told) {
      return told.stream().map(Told::event).toList();
    }
  }

  private Told only() {
    assertThat(told).hasSize(1);
    Told t = told.get(0);
    told.clear();
    assertThat(t.event().toString()).doesNotContain("do-not-leak");
    return t;
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void eachJobActionTellsOneEventWithWhoWhenAndWhyAfterItsCommit(String backend) throws Exception {
    openServices(backend, recording);

    long failed = job(CleanupJobState.FAILED, null);
    long before = dbNow();
    CleanupJob retried = control.retry(row.catalogId(), "main", failed, "root");
    Told t = only();
    assertThat(t.event()).isEqualTo(new OperatorEvent.JobRetried(retried, "root", t.event().at()));
    assertThat(t.event().at()).isBetween(before, dbNow());
    assertThat(t.event().catalog()).isEqualTo("main");
    assertThat(t.committed()).as("the listener sees the retry committed").isEqualTo(CleanupJobState.PENDING);

    long waiting = job(CleanupJobState.PENDING, HOUR);
    CleanupJob ranNow = control.runNow(row.catalogId(), "main", waiting, "ops");
    t = only();
    assertThat(t.event()).isInstanceOfSatisfying(OperatorEvent.JobRunNow.class, e -> {
      assertThat(e.job()).isEqualTo(ranNow);
      assertThat(e.by()).isEqualTo("ops");
      assertThat(e.at()).isEqualTo(ranNow.nextAttemptAt());
    });
    assertThat((Long) t.committed()).as("the listener sees the wait gone").isLessThanOrEqualTo(dbNow());

    long toAbandon = job(CleanupJobState.FAILED, null);
    CleanupJob abandoned = endings.abandon(row, toAbandon, "root", "  removed by hand  ");
    t = only();
    assertThat(t.event()).isEqualTo(new OperatorEvent.JobAbandoned(abandoned, "root", abandoned.endedAt(),
        "removed by hand"));
    assertThat(t.committed()).isEqualTo(CleanupJobState.ABANDONED);

    ParquetTables.createRichTable(catalog, "t", Map.of());
    CleanupJob dropped = enqueuer.dropTable(row, id("t"), "alice");
    CleanupJob rescued = endings.rescue(row, dropped.jobId(), "root", null);
    t = only();
    assertThat(t.event()).isEqualTo(new OperatorEvent.JobRescued(rescued, "root", rescued.endedAt(), null));
    assertThat(t.committed()).isEqualTo(CleanupJobState.CANCELLED);
    assertThat(catalog.tableExists(id("t"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void holdAndProtectionEventsCarryTheObjectAsStoredAfterItsCommit(String backend) throws Exception {
    openServices(backend, recording);
    long until = dbNow() + HOUR;

    Holds.Placed first = holdsTold.place(row, HoldDao.Kind.TABLE, NS, "t", "legal", "matter 42", until);
    Told t = only();
    assertThat(t.event()).isEqualTo(new OperatorEvent.HoldPlaced("main", first.hold(), List.of(), List.of()));
    assertThat(first.hold().expiresAt()).isEqualTo(until);
    assertThat(t.event().by()).isEqualTo("legal");
    assertThat(t.event().at()).isEqualTo(first.hold().placedAt());
    assertThat(t.committed()).as("the listener sees the hold").isEqualTo(true);

    Holds.Placed second = holdsTold.place(row, HoldDao.Kind.TABLE, NS, "t", "legal-2", "matter 43", null);
    OperatorEvent.HoldPlaced placed = (OperatorEvent.HoldPlaced) only().event();
    assertThat(placed.hold()).isEqualTo(second.hold());
    assertThat(placed.replaced()).singleElement().satisfies(r -> {
      assertThat(r.holdId()).isEqualTo(first.hold().holdId());
      assertThat(r.releasedBy()).isEqualTo("legal-2");
    });

    List<HoldDao.Hold> released = holdsTold.release(row, HoldDao.Kind.TABLE, NS, "t", "legal-3");
    t = only();
    assertThat(t.event()).isEqualTo(new OperatorEvent.HoldReleased("main", released.get(0)));
    assertThat(t.event().by()).isEqualTo("legal-3");
    assertThat(((OperatorEvent.HoldReleased) t.event()).hold().reason()).isEqualTo("matter 43");
    assertThat(t.committed()).as("the listener sees the release").isEqualTo(true);

    var set = protections.protect(row, ProtectionDao.Kind.NAMESPACE, NS, "", "root", "quarterly close");
    t = only();
    assertThat(t.event()).isEqualTo(new OperatorEvent.ProtectionSet("main", set.protection()));
    assertThat(t.event().by()).isEqualTo("root");
    assertThat(t.committed()).isEqualTo(true);

    long beforeClear = System.currentTimeMillis();
    protections.unprotect(row, ProtectionDao.Kind.NAMESPACE, NS, "", "ops");
    t = only();
    assertThat(t.event()).isInstanceOfSatisfying(OperatorEvent.ProtectionCleared.class, e -> {
      assertThat(e.protection()).isEqualTo(set.protection());
      assertThat(e.by()).isEqualTo("ops");
      assertThat(e.at()).isBetween(beforeClear, System.currentTimeMillis());
    });
    assertThat(t.committed()).as("the listener sees it gone").isEqualTo(true);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRefusedActionOrANoOpTellsNothing(String backend) throws Exception {
    openServices(backend, recording);
    long pending = job(CleanupJobState.PENDING, null);
    long succeeded = job(CleanupJobState.SUCCEEDED, null);

    assertThatThrownBy(() -> control.retry(row.catalogId(), "main", pending, "root"))
        .isInstanceOf(CleanupJobStateException.class);
    assertThat(control.runNow(row.catalogId(), "main", pending, "root")).as("not waiting: answered unchanged")
        .isEqualTo(row(pending));
    assertThatThrownBy(() -> control.runNow(row.catalogId(), "main", succeeded, "root"))
        .isInstanceOf(CleanupJobStateException.class);
    assertThatThrownBy(() -> endings.abandon(row, pending, "root", "gone")).isInstanceOf(CleanupJobStateException.class);
    assertThatThrownBy(() -> endings.abandon(row, job(CleanupJobState.FAILED, null), "root", " "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> endings.rescue(row, succeeded, "root", null)).isInstanceOf(CleanupJobStateException.class);
    assertThatThrownBy(() -> holdsTold.place(row, HoldDao.Kind.TABLE, NS, "t", "legal", " ", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(holdsTold.release(row, HoldDao.Kind.TABLE, NS, "t", "legal")).isEmpty();
    assertThatThrownBy(() -> protections.protect(row, ProtectionDao.Kind.TABLE, NS, "", "root", ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(protections.unprotect(row, ProtectionDao.Kind.TABLE, NS, "t", "root")).isEmpty();

    assertThat(events()).isEmpty();
  }

  /** Two threads retry one FAILED job at once, 10 rounds: one wins and is told; the loser's 409 tells nothing. */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void ofTwoConcurrentRetriesOnlyTheWinnerIsTold(String backend) throws Exception {
    openServices(backend, recording);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 10; round++) {
        long id = job(CleanupJobState.FAILED, null);
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<Boolean>> tries = new ArrayList<>();
        for (String who : List.of("a", "b")) {
          tries.add(pool.submit(() -> {
            start.await(10, TimeUnit.SECONDS);
            try {
              control.retry(row.catalogId(), "main", id, who);
              return true;
            } catch (CleanupJobStateException lost) {
              return false;
            }
          }));
        }
        int won = 0;
        for (Future<Boolean> f : tries) {
          won += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(won).as("round %d", round).isEqualTo(1);
        Told t = only();
        assertThat(t.event()).isInstanceOf(OperatorEvent.JobRetried.class);
        assertThat(((OperatorEvent.JobRetried) t.event()).job().jobId()).isEqualTo(id);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aListenerThatThrowsDoesNotFailTheAction(String backend) throws Exception {
    openServices(backend, THROWING);
    long failed = job(CleanupJobState.FAILED, null);
    assertThat(control.retry(row.catalogId(), "main", failed, "root").state()).isEqualTo(CleanupJobState.PENDING);
    long waiting = job(CleanupJobState.PENDING, HOUR);
    assertThat(control.runNow(row.catalogId(), "main", waiting, "root").nextAttemptAt()).isLessThanOrEqualTo(dbNow());
    assertThat(endings.abandon(row, job(CleanupJobState.FAILED, null), "root", "gone").state())
        .isEqualTo(CleanupJobState.ABANDONED);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    CleanupJob dropped = enqueuer.dropTable(row, id("t"), "alice");
    assertThat(endings.rescue(row, dropped.jobId(), "root", "oops").state()).isEqualTo(CleanupJobState.CANCELLED);
    assertThat(holdsTold.place(row, HoldDao.Kind.TABLE, NS, "t", "legal", "matter", null).hold()).isNotNull();
    assertThat(holdsTold.release(row, HoldDao.Kind.TABLE, NS, "t", "legal")).hasSize(1);
    protections.protect(row, ProtectionDao.Kind.TABLE, NS, "t", "root", "");
    assertThat(protections.unprotect(row, ProtectionDao.Kind.TABLE, NS, "t", "root")).isPresent();
    assertThat(protections.list(row.catalogId())).isEmpty();
  }
}
