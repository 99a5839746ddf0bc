package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.reset.Reset;
import dev.lethe.store.core.reset.ResetReport;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncConflict;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.git.GitStore;
import dev.lethe.store.remote.RemoteStore;
import dev.lethe.store.s3.S3Store;
import dev.lethe.store.s3.testing.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Seven stores in a sync ring — a {@code file:} laptop, a {@code git:} work tree, an {@code s3:}
 * prefix and real {@code lethe server} processes on another {@code s3:} prefix, on {@code git:}, on
 * {@code file:} and on PostgreSQL, reached through the remote client; both prefixes live on an
 * S3Mock the test starts — driven by a seeded
 * random mix of puts, deletes, namespace resets, recreations and ring syncs, checked by an oracle
 * (docs/design/0106-store-races-and-sync-ring.md, docs/design/0115-batched-raw-writes.md). Sync
 * into the servers goes through the batched raw put route; a reset through a server goes through
 * its consumer listing and deletes:
 *
 * <ul>
 *   <li>no store ever moves a key backwards: a record it held is never replaced by one of that
 *       record's ancestors, so a deleted key never comes back;
 *   <li>after the final sync rounds (a user resolving the reported delete-versus-edit conflicts
 *       by deleting) every store holds the same revision of every key and every pair reports
 *       converged;
 *   <li>no acknowledged write is lost: each one is the final record, or an ancestor of it through
 *       the revision graph of every record any store held, or (a tombstone) outranked by a
 *       higher tombstone.
 * </ul>
 *
 * The seed is printed; {@code -Dlethe.it.ring.seed=N} replays a run, {@code -Dlethe.it.ring.ops=N}
 * sets its length.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreSyncRingTest {
  private static final int CAP = 32;
  private static final KeyPrefix PREFIX = KeyPrefix.namespace("ring");

  private final List<Store> stores = new ArrayList<>();
  private final List<String> names = List.of("file", "git", "s3", "server on s3", "server on git", "server on file",
      "server on postgresql");
  private final List<LetheProcess> servers = new ArrayList<>();
  private Backends.Fresh database;

  /** Per key, every revision's parent and ancestors, from every record any store held (a revision is only unique within its key). */
  private final Map<RecordKey, Map<Revision, Set<Revision>>> graph = new HashMap<>();
  /** What each store last held per key. */
  private final Map<String, Record> held = new HashMap<>();
  private final List<Record> acked = new ArrayList<>();
  /** Per key, every tombstone revision any store held. */
  private final Map<RecordKey, Set<Revision>> tombstones = new HashMap<>();

  @BeforeAll
  void openStores() throws Exception {
    Path work = Files.createDirectories(
        Path.of(System.getProperty("lethe.it.work-dir", "target/it"), "sync-ring-" + System.nanoTime()));
    stores.add(new FsStore(work.resolve("laptop"), CAP, Clock.systemUTC()));
    stores.add(GitStore.open(work.resolve("notes-git"), CAP, Clock.systemUTC()));
    S3TestServer s3 = S3TestServer.get();
    stores.add(S3Store.open(s3.freshUri(), s3.settings(), Map.of(), CAP, Clock.systemUTC()));
    database = Backends.createOrSkip("postgresql");
    Map<String, String> s3Env = new HashMap<>(Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0"));
    s3.settings().forEach((k, v) -> s3Env.put(ConfigKeys.environmentVariable(k), v));
    servers.add(LetheProcess.start(StoreServerPool.freePort(), work.resolve("server-s3"), work.resolve("server-s3.log"),
        List.of("--store-uri", s3.freshUri()), s3Env));
    servers.add(LetheProcess.start(StoreServerPool.freePort(), work.resolve("server-git"), work.resolve("server-git.log"),
        List.of("--store-uri", "git:" + work.resolve("server-git-store")),
        Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0")));
    servers.add(LetheProcess.start(StoreServerPool.freePort(), work.resolve("server-fs"), work.resolve("server-fs.log"),
        List.of(), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0")));
    servers.add(LetheProcess.start(StoreServerPool.freePort(), work.resolve("server-pg"), work.resolve("server-pg.log"),
        List.of("--store-uri", database.jdbcUrl()), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0")));
    for (LetheProcess server : servers) {
      stores.add(RemoteStore.open("http://127.0.0.1:" + server.port(), Optional.empty()));
    }
  }

  @AfterAll
  void close() throws Exception {
    for (Store s : stores) {
      if (s instanceof AutoCloseable c) {
        c.close();
      }
    }
    for (LetheProcess server : servers) {
      server.close();
    }
    if (database != null) {
      database.drop();
    }
  }

  @Test
  void randomPutsDeletesAndRingSyncsConvergeWithoutResurrectionOrLoss() {
    long seed = Long.getLong("lethe.it.ring.seed", new Random().nextLong());
    int ops = Integer.getInteger("lethe.it.ring.ops", 400);
    System.out.println("StoreSyncRingTest seed " + seed + " ops " + ops + " (replay: -Dlethe.it.ring.seed=" + seed + ")");
    Random random = new Random(seed);
    List<RecordKey> keys = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      keys.add(new RecordKey("ring", i < 4 ? "lines" : "docs", "k" + i));
    }
    int syncs = 0;
    int resets = 0;
    for (int op = 0; op < ops; op++) {
      int roll = random.nextInt(10);
      int s = random.nextInt(stores.size());
      RecordKey key = keys.get(random.nextInt(keys.size()));
      String where = "seed " + seed + " op " + op;
      if (roll < 5) {
        put(s, key, "op" + op, where);
      } else if (roll < 7) {
        delete(s, key, where);
      } else if (roll < 8 && random.nextInt(4) == 0) {
        reset(s, where);
        resets++;
      } else {
        sync(s, (s + 1) % stores.size(), where);
        syncs++;
      }
    }
    // the final rounds: sync the ring until nothing is reported; a delete-versus-edit (or an opaque
    // edit-versus-edit) conflict is resolved as a user would, by deleting the live sides
    int resolved = 0;
    boolean converged = false;
    for (int round = 0; round < 10 && !converged; round++) {
      Set<RecordKey> conflicted = new TreeSet<>();
      for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < stores.size(); s++) {
          sync(s, (s + 1) % stores.size(), "seed " + seed + " final round " + round).conflicts().stream()
              .map(SyncConflict::key).forEach(conflicted::add);
        }
      }
      for (RecordKey key : conflicted) {
        for (int s = 0; s < stores.size(); s++) {
          delete(s, key, "seed " + seed + " resolving " + key);
        }
        resolved++;
      }
      converged = conflicted.isEmpty();
    }
    assertThat(converged).as("seed %d: the ring converges", seed).isTrue();
    for (int s = 0; s < stores.size(); s++) {
      SyncReport r = Sync.run(stores.get(s), stores.get((s + 1) % stores.size()), PREFIX, SyncOptions.DEFAULTS);
      assertThat(r.converged()).as("seed %d: %s and %s converged", seed, names.get(s), names.get((s + 1) % stores.size())).isTrue();
      assertThat(r.copied() + r.fastForwarded() + r.merged()).isZero();
    }
    Map<RecordKey, Record> finals = new LinkedHashMap<>();
    for (Record r : stores.get(0).listRaw(PREFIX)) {
      finals.put(r.key(), r);
    }
    for (int s = 1; s < stores.size(); s++) {
      Map<RecordKey, Revision> other = new LinkedHashMap<>();
      stores.get(s).listRaw(PREFIX).forEach(r -> other.put(r.key(), r.revision()));
      Map<RecordKey, Revision> mine = new LinkedHashMap<>();
      finals.forEach((k, r) -> mine.put(k, r.revision()));
      assertThat(other).as("seed %d: %s holds what %s holds", seed, names.get(s), names.get(0)).isEqualTo(mine);
    }
    for (Record w : acked) {
      Record f = finals.get(w.key());
      assertThat(f).as("seed %d: %s was acked and is gone", seed, w.key()).isNotNull();
      boolean kept = covers(f, w.revision()) || supersededByADelete(f, w);
      assertThat(kept).as("seed %d: acked %s %s %s is neither final (%s) nor superseded by it", seed,
          w.isTombstone() ? "tombstone" : "write", w.key(), w.revision(), f.revision()).isTrue();
    }
    // a key whose last acknowledged write (in the order the test made them) is a delete or a reset
    // is deleted everywhere, unless the live record descends from that very tombstone revision: two
    // stores deleting one revision write the same tombstone, and one of them may have recreated the
    // key after its own delete. Nothing older than the delete came back.
    Map<RecordKey, Record> last = new LinkedHashMap<>();
    acked.forEach(w -> last.put(w.key(), w));
    for (int s = 0; s < stores.size(); s++) {
      for (Record r : stores.get(s).listRaw(PREFIX)) {
        Record t = last.get(r.key());
        if (t != null && t.isTombstone() && !r.isTombstone()) {
          assertThat(covers(r, t.revision()))
              .as("seed %d: %s was last deleted (%s) and %s holds live %s, not a recreation after it", seed, r.key(),
                  t.revision(), names.get(s), r.revision())
              .isTrue();
        }
      }
    }
    System.out.printf("StoreSyncRingTest seed %d: %d resets, %d ops, %d syncs, %d acked writes, %d conflicts resolved, %d keys, "
        + "%d tombstones at the end%n", seed, resets, ops, syncs, acked.size(), resolved, finals.size(),
        finals.values().stream().filter(Record::isTombstone).count());
  }

  private void put(int s, RecordKey key, String text, String where) {
    Store store = stores.get(s);
    Optional<Record> current = store.getRaw(key);
    boolean live = current.isPresent() && !current.get().isTombstone();
    Kind kind = key.collection().equals("lines") ? Kind.LINES : Kind.DOCUMENT;
    String body = kind.equals(Kind.LINES) && live ? ((Body.Inline) current.get().body()).text() + text + "\n" : text + "\n";
    PutResult r = store.put(Record.draft(key, kind, Body.Inline.text(body), Meta.byAuthor(names.get(s))),
        live ? Optional.of(current.get().revision()) : Optional.empty());
    assertThat(r).as(where).isInstanceOf(Committed.class);
    acked.add(((Committed) r).record());
    observe(where);
  }

  private void delete(int s, RecordKey key, String where) {
    Store store = stores.get(s);
    Optional<Record> current = store.getRaw(key);
    if (current.isEmpty() || current.get().isTombstone()) {
      return;
    }
    Deleted d = (Deleted) store.delete(key, Optional.of(current.get().revision()));
    acked.add(d.tombstone().orElseThrow());
    observe(where);
  }

  /** Resets the namespace on store {@code s} (Reset, as {@code lethe store reset}); its tombstones are acked writes. */
  private void reset(int s, String where) {
    Store store = stores.get(s);
    List<Record> live = store.list(PREFIX);
    ResetReport report = Reset.run(store, PREFIX, Optional.of(names.get(s)), Progress.NONE);
    assertThat(report.conflicts()).as(where).isEmpty();
    assertThat(report.deleted()).as(where).isEqualTo(live.size());
    for (Record r : live) {
      Record t = store.getRaw(r.key()).orElseThrow();
      assertThat(t.isTombstone()).as("%s: reset left %s live", where, r.key()).isTrue();
      assertThat(t.parent()).as(where).isEqualTo(r.revision());
      acked.add(t);
    }
    observe(where + " after reset on " + names.get(s));
  }

  private SyncReport sync(int a, int b, String where) {
    SyncReport r = Sync.run(stores.get(a), stores.get(b), PREFIX, SyncOptions.DEFAULTS);
    observe(where + " after sync " + names.get(a) + " <-> " + names.get(b));
    return r;
  }

  /** Records every store's records in the graph and checks no store moved a key backwards. */
  private void observe(String where) {
    for (int s = 0; s < stores.size(); s++) {
      Set<RecordKey> seen = new HashSet<>();
      for (Record r : stores.get(s).listRaw(PREFIX)) {
        seen.add(r.key());
        Set<Revision> edges = graph.computeIfAbsent(r.key(), x -> new HashMap<>()).computeIfAbsent(r.revision(), x -> new HashSet<>());
        if (r.parent() != null) {
          edges.add(r.parent());
        }
        edges.addAll(r.ancestors());
        if (r.isTombstone()) {
          tombstones.computeIfAbsent(r.key(), x -> new HashSet<>()).add(r.revision());
        }
        String slot = s + "/" + r.key();
        Record before = held.put(slot, r);
        if (before != null && !before.revision().equals(r.revision())) {
          assertThat(reaches(r.key(), before.revision(), r.revision()))
              .as("%s: %s went back on %s from %s %s to %s %s", where, r.key(), names.get(s),
                  before.isTombstone() ? "tombstone" : "live", before.revision(), r.isTombstone() ? "tombstone" : "live",
                  r.revision())
              .isFalse();
        }
      }
      for (Map.Entry<String, Record> e : held.entrySet()) {
        if (e.getKey().startsWith(s + "/")) {
          assertThat(seen).as("%s: %s vanished from %s (nothing purges here)", where, e.getKey(), names.get(s))
              .contains(e.getValue().key());
        }
      }
    }
  }

  /** Whether {@code f} is {@code r} or descends from it. */
  private boolean covers(Record f, Revision r) {
    return f.revision().equals(r) || reaches(f.key(), f.revision(), r);
  }

  /**
   * Whether {@code w} was deleted by a tombstone (itself, or one descending from it) that only a
   * tombstone at least as high replaced, and the final record is or descends from that one: two
   * concurrent deletes of a key keep the higher tombstone, and the key stays deleted (or was
   * recreated after it).
   */
  private boolean supersededByADelete(Record f, Record w) {
    Set<Revision> ts = tombstones.getOrDefault(w.key(), Set.of());
    for (Revision t : ts) {
      if (t.equals(w.revision()) || reaches(w.key(), t, w.revision())) {
        for (Revision higher : ts) {
          if (higher.compareTo(t) >= 0 && covers(f, higher)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Whether {@code to} is an ancestor of {@code from} in the graph of every record seen. */
  private boolean reaches(RecordKey key, Revision from, Revision to) {
    Map<Revision, Set<Revision>> edges = graph.getOrDefault(key, Map.of());
    Set<Revision> visited = new HashSet<>();
    List<Revision> todo = new ArrayList<>(List.of(from));
    while (!todo.isEmpty()) {
      Revision r = todo.remove(todo.size() - 1);
      for (Revision next : edges.getOrDefault(r, Set.of())) {
        if (next.equals(to)) {
          return true;
        }
        if (visited.add(next)) {
          todo.add(next);
        }
      }
    }
    return false;
  }
}
