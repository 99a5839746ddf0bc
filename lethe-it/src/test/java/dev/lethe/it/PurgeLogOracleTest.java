package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectGate;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncConflict;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.core.testing.MutableClock;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.jdbc.JdbcStore;
import dev.lethe.store.remote.RemoteStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seeded randomized oracle for collection that cannot resurrect
 * (docs/design/0152-sync-restores-collected-tombstones.md): two {@code file:} stores, one {@code
 * jdbc:} store (PostgreSQL with {@code -Dlethe.test.postgres.url}, else H2) and a real server
 * process, on one clock the test moves. Edits, deletes, recreations, syncs of random pairs,
 * collects with random horizons (forced past the peer gate, so only the purge log stands between
 * a collect and a stale peer), and one store offline for long stretches. Oracle: a store that
 * has held a key's tombstone never again holds live a revision that tombstone deleted (the
 * deleted revision or one of its ancestors), whether the tombstone is still there or collected; and
 * after conflicts are resolved, a final round of syncs converges every store. Replay with
 * {@code -Dlethe.test.seed}.
 */
class PurgeLogOracleTest {

  private static final int OPS = Integer.getInteger("lethe.test.purgelog.ops", 400);

  @Test
  void noCollectedDeleteEverComesBackAndEveryStoreConverges() throws Exception {
    long seed = Long.getLong("lethe.test.seed", new Random().nextLong());
    System.out.println("PurgeLogOracleTest seed " + seed + " (replay: -Dlethe.test.seed=" + seed + ")");
    Random random = new Random(seed);
    Path work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it"),
        "purge-log-oracle-" + System.nanoTime()));
    Path clockFile = work.resolve("clock");
    MutableClock clock = MutableClock.at2026();
    clock.onChange(ms -> {
      try {
        Path tmp = Files.writeString(work.resolve("clock.tmp"), Long.toString(ms));
        Files.move(tmp, clockFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    clock.advance(Duration.ZERO);
    Files.writeString(clockFile, Long.toString(clock.millis()));
    Optional<String> pg = Backends.serverUrl("postgresql");
    Backends.Fresh fresh = pg.isPresent() ? Backends.create("postgresql", pg.get()) : null;
    String jdbcUrl = fresh != null ? fresh.jdbcUrl() : "jdbc:h2:" + work.resolve("h2").toAbsolutePath();
    try (LetheProcess process = LetheProcess.start(StoreServerPool.freePort(), work.resolve("server"),
            work.resolve("server.log"), List.of(), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0",
                "LETHE_STORE_TESTING_CLOCK_FILE", clockFile.toString()));
        FsStore f1 = new FsStore(work.resolve("f1"), 32, clock);
        FsStore f2 = new FsStore(work.resolve("f2"), 32, clock);
        JdbcStore db = JdbcStore.open(jdbcUrl, 4, 32, clock)) {
      Store remote = RemoteStore.open("http://127.0.0.1:" + process.port(), Optional.empty());
      List<Store> stores = List.of(f1, f2, db, remote);
      List<String> names = List.of("file:1", "file:2", fresh != null ? "jdbc:postgresql" : "jdbc:h2", "server");
      run(random, seed, clock, stores, names);
    } finally {
      if (fresh != null) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(fresh.adminUrl());
            java.sql.Statement st = c.createStatement()) {
          st.execute(fresh.dropSql());
        }
      }
    }
  }

  private static void run(Random random, long seed, MutableClock clock, List<Store> stores, List<String> names) {
    List<RecordKey> keys = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      keys.add(new RecordKey("oracle", "c", "k" + i));
    }
    Map<RecordKey, Set<Revision>> deleted = new HashMap<>();
    // per store and key: the deleted revision it held live when the delete was acknowledged (allowed to stay)
    Map<String, Revision> heldAtDelete = new HashMap<>();
    int offline = -1;
    int restoredTotal = 0;
    int collected = 0;
    for (int op = 0; op < OPS; op++) {
      String at = "seed " + seed + " op " + op;
      if (random.nextInt(12) == 0) {
        offline = offline >= 0 ? -1 : random.nextInt(stores.size());
      }
      int si = random.nextInt(stores.size());
      Store s = stores.get(si);
      RecordKey k = keys.get(random.nextInt(keys.size()));
      switch (random.nextInt(11)) {
        case 0, 1 -> {
          Optional<Record> cur = s.getRaw(k);
          Optional<Revision> expected = cur.filter(r -> !r.isTombstone()).map(Record::revision);
          s.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text("op" + op), Meta.byAuthor("o")), expected);
        }
        case 2, 3, 4 -> {
          Optional<Record> cur = s.get(k);
          if (cur.isPresent()) {
            DeleteResult d = s.delete(k, Optional.of(cur.get().revision()));
            if (d instanceof Deleted del && del.tombstone().isPresent()) {
              Set<Revision> gone = deleted.computeIfAbsent(k, x -> new HashSet<>());
              gone.add(cur.get().revision());
              gone.addAll(cur.get().ancestors());
              for (int j = 0; j < stores.size(); j++) {
                Optional<Record> there = stores.get(j).get(k);
                if (there.isPresent() && gone.contains(there.get().revision())) {
                  heldAtDelete.put(j + "/" + k, there.get().revision());
                }
              }
            }
          }
        }
        case 5, 6, 7 -> {
          int ti = random.nextInt(stores.size());
          if (ti != si && si != offline && ti != offline) {
            restoredTotal += Sync.run(s, stores.get(ti), KeyPrefix.all(), SyncOptions.DEFAULTS).restored();
          }
        }
        case 8, 9 -> {
          Duration horizon = Duration.ofHours(1 + random.nextInt(24));
          collected += Collect.run(s, KeyPrefix.all(), horizon, clock, Progress.NONE,
              random.nextInt(4) == 0 ? CollectGate.Mode.SEEN_BY_ALL : CollectGate.Mode.FORCE, CollectGate.DEFAULT_SKEW).purged();
        }
        default -> clock.advance(Duration.ofMinutes(1 + random.nextInt(60 * 48)));
      }
      check(at, stores, names, keys, deleted, heldAtDelete);
    }
    // final rounds: resolve conflicts by deleting the live side, then sync every pair until converged
    boolean converged = false;
    for (int round = 0; round < 6 && !converged; round++) {
      converged = true;
      for (int i = 0; i < stores.size(); i++) {
        for (int j = i + 1; j < stores.size(); j++) {
          SyncReport r = Sync.run(stores.get(i), stores.get(j), KeyPrefix.all(), SyncOptions.DEFAULTS);
          restoredTotal += r.restored();
          converged &= r.converged();
          for (SyncConflict c : r.conflicts()) {
            for (Store each : List.of(stores.get(i), stores.get(j))) {
              each.get(c.key()).ifPresent(live -> each.delete(c.key(), Optional.of(live.revision())));
            }
          }
        }
      }
      check("seed " + seed + " final round " + round, stores, names, keys, deleted, heldAtDelete);
    }
    System.out.println("PurgeLogOracleTest: " + OPS + " ops, " + collected + " tombstones collected, "
        + restoredTotal + " restored");
    assertThat(converged).as("seed %d: converged after the final rounds", seed).isTrue();
    for (RecordKey k : keys) {
      Optional<Record> first = stores.get(0).getRaw(k);
      for (Store s : stores) {
        Optional<Record> here = s.getRaw(k);
        assertThat(here.map(Record::revision).orElse(null)).as("seed %d: %s on %s", seed, k, s)
            .isEqualTo(first.map(Record::revision).orElse(null));
      }
    }
  }

  /**
   * A store that has held a tombstone of a key knows the revisions it deleted (its parent and
   * ancestors); one of them live there again is a resurrection. A store that never saw the delete
   * may still hold or receive the old record: the delete has not reached it yet.
   */
  private static void check(String at, List<Store> stores, List<String> names, List<RecordKey> keys,
      Map<RecordKey, Set<Revision>> deleted, Map<String, Revision> heldAtDelete) {
    for (int j = 0; j < stores.size(); j++) {
      for (RecordKey k : keys) {
        Optional<Record> raw = stores.get(j).getRaw(k);
        Set<Revision> known = KNOWN.computeIfAbsent(names.get(j) + "/" + k, x -> new HashSet<>());
        if (raw.isPresent() && raw.get().isTombstone()) {
          known.add(raw.get().parent());
          known.addAll(raw.get().ancestors());
        } else if (raw.isPresent()) {
          assertThat(known).as("%s: %s resurrected %s at %s", at, names.get(j), k, raw.get().revision())
              .doesNotContain(raw.get().revision());
        }
      }
    }
  }

  private static final Map<String, Set<Revision>> KNOWN = new HashMap<>();
}
