package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectGate;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeEntry;
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
 * jdbc:} store (PostgreSQL with {@code -Dlethe.test.postgres.url}, else H2, which fails instead
 * under {@code -Dlethe.test.require-dbs=true}) and a real server
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
    oracle(seed, OPS, false);
  }

  /**
   * The oracle can fail: with sync blind to the purge logs (every store's ledger answers an empty
   * log to sync, so {@link dev.lethe.store.core.sync.RestorePlanner} never sees an entry), a fixed
   * seed resurrects a collected delete within a short run.
   */
  @Test
  void theOracleFailsWhenSyncCannotSeeThePurgeLogs() {
    assertThatThrownBy(() -> oracle(BLIND_SEED, BLIND_OPS, true)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("resurrected");
  }

  private static final long BLIND_SEED = 42L;
  private static final int BLIND_OPS = 260;

  /**
   * Runs the oracle on four stores.
   *
   * @param blind hide every purge log from sync (test wiring only: {@link WithoutPurgeLog}), so the
   *     run shows what the restore rule prevents
   */
  private static void oracle(long seed, int ops, boolean blind) throws Exception {
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
    if (pg.isEmpty() && Boolean.getBoolean("lethe.test.require-dbs")) {
      throw new IllegalStateException("the postgresql URL is empty but lethe.test.require-dbs=true");
    }
    Backends.Fresh fresh = pg.isPresent() ? Backends.create("postgresql", pg.get()) : null;
    String jdbcUrl = fresh != null ? fresh.jdbcUrl() : "jdbc:h2:" + work.resolve("h2").toAbsolutePath();
    try (LetheProcess process = LetheProcess.start(StoreServerPool.freePort(), work.resolve("server"),
            work.resolve("server.log"), List.of(), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0",
                "LETHE_STORE_TESTING_CLOCK_FILE", clockFile.toString()));
        FsStore f1 = new FsStore(work.resolve("f1"), 32, clock);
        FsStore f2 = new FsStore(work.resolve("f2"), 32, clock);
        JdbcStore db = JdbcStore.open(jdbcUrl, 4, 32, clock)) {
      Store remote = RemoteStore.open("http://127.0.0.1:" + process.port(), Optional.empty());
      List<Store> stores = new ArrayList<>(List.of(f1, f2, db, remote));
      if (blind) {
        stores.replaceAll(WithoutPurgeLog::new);
      }
      List<String> names = List.of("file:1", "file:2", fresh != null ? "jdbc:postgresql" : "jdbc:h2", "server");
      run(random, seed, ops, clock, stores, names);
    } finally {
      if (fresh != null) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(fresh.adminUrl());
            java.sql.Statement st = c.createStatement()) {
          st.execute(fresh.dropSql());
        }
      }
    }
  }

  private static void run(Random random, long seed, int ops, MutableClock clock, List<Store> stores,
      List<String> names) {
    List<RecordKey> keys = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      keys.add(new RecordKey("oracle", "c", "k" + i));
    }
    // per store and key: every revision a tombstone it held deleted (the tombstone's parent and ancestors)
    Map<String, Set<Revision>> known = new HashMap<>();
    int offline = -1;
    int restoredTotal = 0;
    int collected = 0;
    for (int op = 0; op < ops; op++) {
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
            s.delete(k, Optional.of(cur.get().revision()));
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
      check(at, stores, names, keys, known);
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
      check("seed " + seed + " final round " + round, stores, names, keys, known);
    }
    System.out.println("PurgeLogOracleTest: " + ops + " ops, " + collected + " tombstones collected, "
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
      Map<String, Set<Revision>> knownDeleted) {
    for (int j = 0; j < stores.size(); j++) {
      for (RecordKey k : keys) {
        Optional<Record> raw = stores.get(j).getRaw(k);
        Set<Revision> known = knownDeleted.computeIfAbsent(names.get(j) + "/" + k, x -> new HashSet<>());
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

  /**
   * Test wiring only: a store whose ledger answers an empty purge log, so sync plans every key as
   * if nothing had been collected. Everything else is the wrapped store's.
   */
  private static final class WithoutPurgeLog implements Store {
    private final Store s;

    WithoutPurgeLog(Store s) {
      this.s = s;
    }

    @Override public Optional<Record> get(RecordKey key) { return s.get(key); }
    @Override public List<Record> list(KeyPrefix prefix) { return s.list(prefix); }
    @Override public PutResult put(Record record, Optional<Revision> expected) { return s.put(record, expected); }
    @Override public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
      return s.deleteAs(key, expected, author);
    }
    @Override public Optional<Record> getRaw(RecordKey key) { return s.getRaw(key); }
    @Override public List<Record> listRaw(KeyPrefix prefix) { return s.listRaw(prefix); }
    @Override public Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
      return s.listPage(prefix, after, limit);
    }
    @Override public Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
      return s.listRawPage(prefix, after, limit);
    }
    @Override public PutResult putRaw(Record record, Optional<Revision> expected) { return s.putRaw(record, expected); }
    @Override public List<PutResult> putRawBatch(List<RawPut> items) { return s.putRawBatch(items); }
    @Override public DeleteResult purge(RecordKey key, Optional<Revision> expected) { return s.purge(key, expected); }
    @Override public BlobStore blobs() { return s.blobs(); }
    @Override public int ancestorCap() { return s.ancestorCap(); }
    @Override public String toString() { return s.toString(); }

    @Override
    public Ledger ledger() {
      Ledger l = s.ledger();
      return new Ledger() {
        @Override public String storeId() { return l.storeId(); }
        @Override public long now() { return l.now(); }
        @Override public List<Peer> peers() { return l.peers(); }
        @Override public void recordPeer(Peer peer) { l.recordPeer(peer); }
        @Override public boolean forgetPeer(String id) { return l.forgetPeer(id); }
        @Override public Optional<Long> collectCutoff() { return l.collectCutoff(); }
        @Override public void recordCollect(long cutoffMs) { l.recordCollect(cutoffMs); }
        @Override public void appendPurged(PurgeEntry entry) { l.appendPurged(entry); }
        @Override public List<PurgeEntry> purged(KeyPrefix prefix) { return List.of(); }
        @Override public int trimPurged(long purgedBeforeMs) { return l.trimPurged(purgedBeforeMs); }
      };
    }
  }
}
