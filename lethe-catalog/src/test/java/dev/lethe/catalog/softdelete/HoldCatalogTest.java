package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.HeldException;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.EnqueuePurge;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Legal holds (docs/design/0444-legal-holds.md) at the catalog level on a real database (H2
 * always, PostgreSQL and MariaDB when configured), with real Parquet files: every purge path of a
 * held table deletes nothing, and a release lets the waiting purges finish.
 */
class HoldCatalogTest extends HoldFixture {
  private static void refused(ThrowingCallable purge) {
    assertThatThrownBy(purge).isInstanceOf(HeldException.class).hasMessageContaining("placed by legal")
        .hasMessageContaining("matter");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void dropWithPurgeOfAHeldTableIsRefusedAndChangesNothing(String backend) throws Exception {
    openHolds(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    holdTable(ParquetTables.NS, "t");

    refused(() -> catalog.dropTable(id("t"), true));
    refused(() -> catalog.purgeTable(id("t"), "bob"));
    refused(() -> enqueuer.dropTable(row, id("t"), "bob"));
    refused(() -> enqueuer.dropTableClaimed(row, id("t"), "bob"));

    assertThat(catalog.tableExists(id("t"))).isTrue();
    assertThat(filesUnder(table.location())).isEqualTo(files);
    assertThat(jobCount()).isZero();
    // a metadata-only drop deletes no file: allowed, the files stay
    assertThat(catalog.dropTable(id("t"), false)).isTrue();
    assertThat(filesUnder(table.location())).isEqualTo(files);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aQueuedJobOfAHeldTableWaitsWithoutDeletingAndFinishesAfterRelease(String backend) throws Exception {
    openHolds(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    CleanupJob queued = enqueuer.dropTable(row, id("t"), "bob");
    holdTable(ParquetTables.NS, "t");

    assertThat(runWorker()).as("nothing claimed while held").isEmpty();
    CleanupJob waiting = job(queued.jobId());
    assertThat(waiting.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(waiting.attempts()).isZero();
    assertThat(waiting.lastError()).startsWith("waiting for legal hold").contains("matter 42");
    assertThat(waiting.nextAttemptAt()).isNotNull();
    assertThat(filesUnder(table.location())).isEqualTo(files);

    assertThat(releaseTable(ParquetTables.NS, "t")).hasSize(1);
    assertThat(job(queued.jobId()).nextAttemptAt()).as("a release wakes the waiting job").isNull();
    assertThat(runWorker()).extracting(PurgeJobExecutor.Finished::state).containsExactly(CleanupJobState.SUCCEEDED);
    assertThat(filesUnder(table.location())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHoldPlacedAfterTheClaimStopsTheRunBeforeItDeletesAnything(String backend) throws Exception {
    openHolds(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    CleanupJob queued = enqueuer.dropTable(row, id("t"), "bob");
    JobClaimer.Claimed claimed = claimer.claim(60_000).orElseThrow();
    holdTable(ParquetTables.NS, "t"); // after the claim committed, before the first phase

    PurgeJobExecutor.Finished run = executor.execute(claimed, false);

    assertThat(run.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(job(queued.jobId()).attempts()).isZero();
    assertThat(filesUnder(table.location())).isEqualTo(files);
    releaseTable(ParquetTables.NS, "t");
    assertThat(runWorker()).extracting(PurgeJobExecutor.Finished::state).containsExactly(CleanupJobState.SUCCEEDED);
    assertThat(filesUnder(table.location())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void expirySkipsAHeldSoftDeletedTablePastItsDeadlineUndropWorksAndReleasePurgesOnTheNextTick(String backend)
      throws Exception {
    openHolds(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    SoftDeletes sd = softDeletes(true, 0); // every drop is past its deadline at once
    holdTable(ParquetTables.NS, "t");
    drop(sd, "t", true); // a soft drop deletes nothing: allowed, and the record stays held

    assertThat(sd.expireDue(10)).as("held: skipped").isEmpty();
    assertThat(runWorker()).isEmpty();
    assertThat(filesUnder(table.location())).isEqualTo(files);
    assertThat(sd.restore(row, id("t"))).as("undrop past the deadline while held").isInstanceOf(Restore.class);
    assertThat(catalog.tableExists(id("t"))).isTrue();

    drop(sd, "t", true);
    assertThat(sd.expireDue(10)).isEmpty();
    releaseTable(ParquetTables.NS, "t");
    List<SoftDeletes.Claimed> claimed = sd.expireDue(10);
    assertThat(claimed).extracting(SoftDeletes.Claimed::decision).hasOnlyElementsOfType(EnqueuePurge.class).hasSize(1);
    assertThat(runWorker()).extracting(PurgeJobExecutor.Finished::state).containsExactly(CleanupJobState.SUCCEEDED);
    assertThat(filesUnder(table.location())).isEmpty();
    assertThat(sd.finalizeSucceeded(10)).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHeldRetainedTableWithoutPurgeKeepsItsRecordPastTheDeadline(String backend) throws Exception {
    openHolds(backend);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    SoftDeletes sd = softDeletes(true, 0);
    holdNamespace(ParquetTables.NS);
    drop(sd, "t", false);

    assertThat(sd.expireDue(10)).isEmpty();
    assertThat(recordCount()).isOne();
    releaseNamespace(ParquetTables.NS);
    assertThat(sd.expireDue(10)).hasSize(1);
    assertThat(recordCount()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void purgeNowOfAHeldRetainedTableIsRefusedAndChangesNothing(String backend) throws Exception {
    openHolds(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    SoftDeletes sd = softDeletes(true, DAY);
    DeletionRecord r = drop(sd, "t", true);
    holdTable(ParquetTables.NS, "t");

    refused(() -> sd.purgeNow(row, id("t"), "admin"));
    refused(() -> sd.purgeNowShown(row, id("t"), "admin"));

    assertThat(jobCount()).isZero();
    assertThat(db.jdbi().withHandle(h -> new DeletionDao(h).find(r.deletionId())).orElseThrow().state())
        .isEqualTo(DeletionState.DELETED);
    assertThat(filesUnder(table.location())).isEqualTo(files);
    releaseTable(ParquetTables.NS, "t");
    assertThat(sd.purgeNow(row, id("t"), "admin").decision()).isInstanceOf(EnqueuePurge.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aNamespaceHoldCoversTablesCreatedLaterAndChildNamespaces(String backend) throws Exception {
    openHolds(backend);
    Namespace child = Namespace.of("db", "child");
    Namespace other = Namespace.of("dbx"); // a name that starts like the held one is not under it
    catalog.createNamespace(child, Map.of());
    catalog.createNamespace(other, Map.of());
    holdNamespace(ParquetTables.NS);

    Table later = createWithData(id("later"));
    Table deep = createWithData(TableIdentifier.of(child, "deep"));
    Table outside = createWithData(TableIdentifier.of(other, "t"));
    refused(() -> catalog.dropTable(id("later"), true));
    refused(() -> catalog.dropTable(TableIdentifier.of(child, "deep"), true));
    assertThat(filesUnder(later.location())).isNotEmpty();
    assertThat(filesUnder(deep.location())).isNotEmpty();
    assertThat(catalog.dropTable(TableIdentifier.of(other, "t"), true)).isTrue();
    assertThat(filesUnder(outside.location())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHoldPastItsEndNoLongerBlocks(String backend) throws Exception {
    openHolds(backend);
    Table table = createWithData(id("t"));
    long now = db.jdbi().withHandle(h -> dev.lethe.catalog.jobs.DatabaseClock.of(db.vendor()).millis(h));
    holds.place(row, HoldDao.Kind.TABLE, NamespaceNames.encode(ParquetTables.NS), "t", "legal", "matter short",
        now + 1500);
    refused(() -> catalog.dropTable(id("t"), true));
    Awaitility.await("the hold's end").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .ignoreException(HeldException.class).until(() -> catalog.dropTable(id("t"), true));
    assertThat(filesUnder(table.location())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void placeAndReleaseAreAuditedAndBadHoldsAreRefused(String backend) throws Exception {
    openHolds(backend);
    String ns = NamespaceNames.encode(ParquetTables.NS);
    assertThatThrownBy(() -> holds.place(row, HoldDao.Kind.TABLE, ns, "t", "legal", " ", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reason is required");
    assertThatThrownBy(() -> holds.place(row, HoldDao.Kind.TABLE, ns, "t", "legal", "r", 1000L))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not in the future");
    assertThatThrownBy(() -> holds.place(row, HoldDao.Kind.NAMESPACE, ns, "t", "legal", "r", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes no name");
    assertThat(holds.list(row.catalogId(), true)).isEmpty();

    HoldDao.Hold first = holdTable(ParquetTables.NS, "t");
    HoldDao.Hold second = holdTable(ParquetTables.NS, "t"); // replaces: the first is kept as released
    assertThat(holds.list(row.catalogId(), false)).containsExactly(second);
    releaseTable(ParquetTables.NS, "t");
    assertThat(releaseTable(ParquetTables.NS, "t")).isEmpty();
    List<HoldDao.Hold> audit = holds.list(row.catalogId(), true);
    assertThat(audit).extracting(HoldDao.Hold::holdId).containsExactlyInAnyOrder(first.holdId(), second.holdId());
    assertThat(audit).allSatisfy(h -> assertThat(h.releasedAt()).isNotNull());
    assertThat(audit).filteredOn(h -> h.holdId().equals(second.holdId())).singleElement()
        .satisfies(h -> assertThat(h.releasedBy()).isEqualTo("legal-2"))
        .satisfies(h -> assertThat(h.reason()).isEqualTo("matter 42"));
    assertThat(holds.list(row.catalogId(), false)).isEmpty();
  }

  /**
   * Two admins releasing one hold at once: exactly one is told it released it, and the audit names
   * that one (the loser's guarded update changes no row, so its answer is "no hold").
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void ofTwoConcurrentReleasesOfOneHoldExactlyOneReleasesIt(String backend) throws Exception {
    openHolds(backend);
    Namespace ns = Namespace.of("db");
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < Integer.getInteger("lethe.test.rounds", 30); round++) {
        holdTable(ns, "t" + round);
        String name = "t" + round;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
        List<java.util.concurrent.Future<List<HoldDao.Hold>>> both = new java.util.ArrayList<>();
        for (String admin : List.of("admin-a", "admin-b")) {
          both.add(pool.submit(() -> {
            start.await();
            return holds.release(row, HoldDao.Kind.TABLE, NamespaceNames.encode(ns), name, admin);
          }));
        }
        List<String> winners = new java.util.ArrayList<>();
        for (java.util.concurrent.Future<List<HoldDao.Hold>> f : both) {
          for (HoldDao.Hold h : f.get(60, java.util.concurrent.TimeUnit.SECONDS)) {
            winners.add(h.releasedBy());
          }
        }
        assertThat(winners).as("round %d", round).hasSize(1);
        List<HoldDao.Hold> audit = holds.list(row.catalogId(), true).stream().filter(h -> h.name().equals(name)).toList();
        assertThat(audit).hasSize(1);
        assertThat(audit.get(0).releasedBy()).as("the audit names the one told it released it").isEqualTo(winners.get(0));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
