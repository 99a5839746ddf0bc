package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.entity.HeldException;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupReceipts;
import dev.lethe.catalog.jobs.Holds;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.purge.PurgeJobRunner;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Table;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A legal hold racing a purge (docs/design/0444-legal-holds.md "A hold and a purge racing"), on H2
 * always, PostgreSQL and MariaDB when configured, with real Parquet files and real threads: once
 * {@link Holds#place} returned with no running purge named, no file the hold covers is deleted; a
 * running purge stops at its next delete batch. Also the gauges and the listing of a held table
 * past its deadline.
 */
class HoldRaceTest extends HoldFixture {
  private static final int ROUNDS = Integer.getInteger("lethe.test.rounds", 12);

  /**
   * An executor whose runner deletes one file per batch, one batch at a time on the pool's one
   * thread (a queue long enough that the submitting thread never runs one itself), calling {@code
   * afterBatch} after each.
   */
  private PurgeJobExecutor oneFilePerBatch(Runnable afterBatch) {
    AsyncPurgeSettings s = new AsyncPurgeSettings(0, 1, 1, 20, 60_000, 5, 720);
    DeletePool deletes = new DeletePool(1, 10_000);
    closeables.add(0, deletes);
    PurgeJobRunner runner = new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, 1, n -> afterBatch.run());
    PurgeJobExecutor e = new PurgeJobExecutor(db, s, runner, ev -> {}, null);
    closeables.add(0, e);
    return e;
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHoldPlacedDuringAPhaseStopsTheNextDeleteBatchAndNamesTheRunningPurge(String backend) throws Exception {
    openHolds(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    AtomicReference<Holds.Placed> placed = new AtomicReference<>();
    PurgeJobExecutor e = oneFilePerBatch(() -> {
      if (placed.get() == null) { // after the first batch (one file) of the first phase
        placed.set(holds.place(row, HoldDao.Kind.TABLE, NamespaceNames.encode(ParquetTables.NS), "t",
            "legal", "matter 9", null));
      }
    });
    CleanupJob queued = enqueuer.dropTable(row, id("t"), "bob");
    JobClaimer.Claimed claimed = claimer.claim(60_000).orElseThrow();

    PurgeJobExecutor.Finished run = e.execute(claimed, false);

    assertThat(run.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(placed.get().runningPurges()).as("the purge was running as the hold was placed")
        .containsExactly(queued.jobId());
    Set<Path> left = filesUnder(table.location());
    assertThat(files.size() - left.size()).as("only the batch before the hold deleted a file").isEqualTo(1);
    assertThat(files).containsAll(left);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHoldPlacedWithNoPurgeRunningNamesNone(String backend) throws Exception {
    openHolds(backend);
    ParquetTables.createRichTable(catalog, "t", Map.of());
    enqueuer.dropTable(row, id("t"), "bob"); // PENDING, not running

    Holds.Placed p = holds.place(row, HoldDao.Kind.NAMESPACE, NamespaceNames.encode(ParquetTables.NS), "",
        "legal", "matter 9", null);

    assertThat(p.runningPurges()).isEmpty();
  }

  /**
   * Seeded rounds of a hold against a synchronous drop with purge and against a worker claiming an
   * enqueued purge, each on its own thread, released together. Oracle: a hold whose answer names no
   * running purge sees every file it found at its return still there at the end; a refused drop
   * deletes nothing; an accepted sync drop whose job the hold did not name had ended before it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHoldAndAPurgeRacingNeverBothPassSeeded(String backend) throws Exception {
    openHolds(backend);
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    Random random = new Random(seed);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        String name = "r" + round;
        boolean sync = random.nextBoolean();
        int spinHold = random.nextInt(2_000);
        int spinPurge = random.nextInt(2_000);
        Table table = createWithData(id(name));
        Set<Path> before = filesUnder(table.location());
        if (!sync) {
          enqueuer.dropTable(row, id(name), "bob");
        }
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicReference<Set<Path>> atHold = new AtomicReference<>();
        CompletableFuture<Holds.Placed> hold = CompletableFuture.supplyAsync(() -> {
          await(start);
          spin(spinHold);
          Holds.Placed p = holds.place(row, HoldDao.Kind.TABLE, NamespaceNames.encode(ParquetTables.NS),
              name, "legal", "race", null);
          atHold.set(uncheckedFilesUnder(table.location()));
          return p;
        }, threads);
        // the sync drop's job id, 0 when refused; -1 for the async rounds
        CompletableFuture<Long> purge = CompletableFuture.supplyAsync(() -> {
          await(start);
          spin(spinPurge);
          if (sync) {
            try {
              JobClaimer.Claimed claimed = enqueuer.dropTableClaimed(row, id(name), "bob");
              executor.execute(claimed, false);
              return claimed.job().jobId();
            } catch (HeldException refused) {
              return 0L;
            }
          }
          runWorker();
          return -1L;
        }, threads);
        Holds.Placed placed = hold.get(60, TimeUnit.SECONDS);
        long jobId = purge.get(60, TimeUnit.SECONDS);
        boolean dropped = jobId != 0;
        Set<Path> after = filesUnder(table.location());
        String what = "seed " + seed + " round " + round + (sync ? " sync" : " async") + ", running " + placed.runningPurges();
        if (!dropped) {
          assertThat(after).as(what + ": a refused drop deletes nothing").isEqualTo(before);
        }
        if (placed.runningPurges().isEmpty()) {
          assertThat(after).as(what + ": nothing deleted after a hold that named no running purge")
              .isEqualTo(atHold.get());
        }
        if (jobId > 0 && !placed.runningPurges().contains(jobId)) {
          // the drop passed its hold check and the hold did not see its job running: then the job
          // had ended before the hold read (it has a receipt), never that both passed unseen
          boolean ended = db.jdbi().withHandle(h -> CleanupReceipts.find(h, row.catalogId(), jobId).isPresent());
          assertThat(ended).as(what + ": drop accepted and job " + jobId + " not named, so it must have ended").isTrue();
        }
        releaseTable(ParquetTables.NS, name);
        runWorker();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theExpiredGaugeLeavesHeldTablesOutAndTheHeldGaugeCountsThem(String backend) throws Exception {
    openHolds(backend);
    ParquetTables.createRichTable(catalog, "held", Map.of());
    ParquetTables.createRichTable(catalog, "free", Map.of());
    SoftDeletes sd = softDeletes(true, 0); // past the deadline at once
    holdTable(ParquetTables.NS, "held");
    drop(sd, "held", true);
    drop(sd, "free", true);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new SoftDeleteMetrics(registry, db, Clock.systemUTC());

    assertThat(registry.get("lethe.softdelete.retained").gauge().value()).isEqualTo(2);
    assertThat(registry.get("lethe.softdelete.expired").gauge().value()).as("the held one is not waiting for purge")
        .isEqualTo(1);
    assertThat(registry.get("lethe.softdelete.held").gauge().value()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aHeldTablePastItsDeadlineIsListedRecoverableAndHeld(String backend) throws Exception {
    openHolds(backend);
    ParquetTables.createRichTable(catalog, "held", Map.of());
    ParquetTables.createRichTable(catalog, "free", Map.of());
    SoftDeletes sd = softDeletes(true, 0);
    holdTable(ParquetTables.NS, "held");
    drop(sd, "held", false);
    drop(sd, "free", false);

    Map<String, DeletedTable> listed = new java.util.TreeMap<>();
    sd.list(row, ParquetTables.NS).orElseThrow().forEach(t -> listed.put(t.name(), t));

    assertThat(listed.get("held").recoverable()).isTrue();
    assertThat(listed.get("held").held()).isTrue();
    assertThat(listed.get("free").recoverable()).isFalse();
    assertThat(listed.get("free").held()).isFalse();
  }

  private static void await(CyclicBarrier b) {
    try {
      b.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A short busy wait of seeded length, to vary which side's transaction goes first. */
  private static void spin(int n) {
    long x = 0;
    for (int i = 0; i < n * 100; i++) {
      x += i ^ (x << 1);
    }
    if (x == 42) {
      throw new AssertionError();
    }
  }

  private static Set<Path> uncheckedFilesUnder(String location) {
    try {
      return filesUnder(location);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
