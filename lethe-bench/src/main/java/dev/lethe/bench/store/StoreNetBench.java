package dev.lethe.bench.store;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.fs.Durability;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.jdbc.JdbcStore;
import dev.lethe.store.remote.RemoteStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The store-over-the-network harness (docs/benchmarks.md "Store over HTTP"): puts and
 * gets in-process and through a {@code lethe server} (real HTTP on loopback; the server runs in
 * this JVM) backed by PostgreSQL and by {@code file:}, with 1 and 8 client threads; sync of a
 * filled {@code file:} store into a server on PostgreSQL and on {@code file:} (sync writes through
 * the batched raw put route, docs/design/0115-batched-raw-writes.md) and into another {@code file:}
 * store. Prints one table row per measurement. Run by hand, never in CI:
 *
 * <pre>
 * java -Xmx1g -cp lethe-bench/target/lethe-bench.jar dev.lethe.bench.store.StoreNetBench \
 *     --pg 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres' --puts 10000 --server-sync 100000 \
 *     --server-fs-sync 5000 --file-sync 100000
 * </pre>
 *
 * Each PostgreSQL store lives in a schema of its own, dropped at the end.
 */
public final class StoreNetBench {
  private StoreNetBench() {}

  /**
   * One measurement.
   *
   * @param seconds wall-clock time of the timed part
   * @param cpuSeconds CPU time this JVM used during it (all threads, user and system; the server
   *     of the remote rows runs in this JVM too), a measure less sensitive to other load than the
   *     wall clock
   */
  private record Row(String what, String backend, int threads, long records, double seconds, double cpuSeconds) {
    double rate() {
      return records / seconds;
    }
  }

  public static void main(String[] args) throws Exception {
    String pg = null;
    boolean skipPuts = false;
    int puts = 20_000;
    int serverSync = 10_000;
    int serverFsSync = 5_000;
    int fileSync = 100_000;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--pg" -> pg = args[++i];
        case "--skip-puts" -> skipPuts = true;
        case "--puts" -> puts = Integer.parseInt(args[++i]);
        case "--server-sync" -> serverSync = Integer.parseInt(args[++i]);
        case "--server-fs-sync" -> serverFsSync = Integer.parseInt(args[++i]);
        case "--file-sync" -> fileSync = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("Unknown argument " + args[i]
            + "; expected --pg JDBC_URL, --skip-puts, --puts N, --server-sync N, --server-fs-sync N, --file-sync N");
      }
    }
    List<Row> rows = new ArrayList<>() {
      @Override
      public boolean add(Row r) {
        // printed as soon as measured, so a long run shows its progress
        System.out.printf("measured: %s, %s, %d threads: %,d records in %.2f s = %,.0f records/s, CPU %.2f s%n", r.what(),
            r.backend(), r.threads(), r.records(), r.seconds(), r.rate(), r.cpuSeconds());
        return super.add(r);
      }
    };
    List<String> schemas = new ArrayList<>();
    Path root = Dirs.fresh("store-net");
    try {
      if (pg != null && !skipPuts) {
        String url = schema(pg, schemas);
        try (JdbcStore local = JdbcStore.open(url, 16, 32, Clock.systemUTC())) {
          for (int threads : new int[] {1, 8}) {
            rows.add(puts("put in-process", "PostgreSQL", local, threads, puts, "inproc" + threads));
          }
          rows.add(gets("get in-process", "PostgreSQL", local, 8, puts, "inproc8"));
        }
      }
      if (pg != null) {
        try (LetheServer server = server(root.resolve("server-pg"), schema(pg, schemas))) {
          Store remote = RemoteStore.open("http://127.0.0.1:" + server.port(), Optional.empty());
          for (int threads : skipPuts ? new int[0] : new int[] {1, 8}) {
            rows.add(puts("put remote", "server on PostgreSQL", remote, threads, puts, "remote" + threads));
          }
          if (!skipPuts) {
            rows.add(gets("get remote", "server on PostgreSQL", remote, 8, puts, "remote8"));
          }
          rows.add(sync("sync file: -> server", "server on PostgreSQL", root.resolve("laptop-pg"), remote, serverSync));
        }
      }
      try (LetheServer server = server(root.resolve("server-fs"), "file:" + root.resolve("server-fs-store"))) {
        Store remote = RemoteStore.open("http://127.0.0.1:" + server.port(), Optional.empty());
        for (int threads : skipPuts ? new int[0] : new int[] {1, 8}) {
          rows.add(puts("put remote", "server on file:", remote, threads, Math.min(puts, 2_000), "remote" + threads));
        }
        if (serverFsSync > 0) {
          rows.add(sync("sync file: -> server", "server on file: (fsync)", root.resolve("laptop-fs"), remote, serverFsSync));
        }
      }
      if (fileSync > 0) {
        FsStore to = new FsStore(root.resolve("file-to"), 32, Clock.systemUTC(), Durability.NO_FSYNC,
            dev.lethe.store.fs.WriteObserver.NONE);
        rows.add(sync("sync file: -> file: (no fsync)", "file:", root.resolve("file-from"), to, fileSync));
      }
    } finally {
      for (String s : schemas) {
        drop(pg, s);
      }
      Dirs.remove(root);
    }
    System.out.printf("%n| operation | backend | client threads | records | seconds | records/s | CPU s |%n"
        + "|---|---|---:|---:|---:|---:|---:|%n");
    for (Row r : rows) {
      System.out.printf("| %s | %s | %d | %,d | %.2f | %,.0f | %.2f |%n", r.what(), r.backend(), r.threads(),
          r.records(), r.seconds(), r.rate(), r.cpuSeconds());
    }
  }

  private static LetheServer server(Path dataDir, String storeUri) {
    return LetheServer.start(new ServerConfig("127.0.0.1", 0, dataDir, null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null,
        Map.of(ConfigKeys.STORE_URI, storeUri, ConfigKeys.STORE_POOL_SIZE, "16",
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
  }

  private static Record draft(String collection, int i) {
    return Record.draft(new RecordKey("benchput", collection, "r" + i), Kind.DOCUMENT,
        Body.Inline.text("record " + i + " " + "x".repeat(100)), Meta.byAuthor("bench"));
  }

  private static Row puts(String what, String backend, Store store, int threads, int n, String collection)
      throws Exception {
    // warm-up, untimed: a few hundred puts so the timed ones run compiled code over warm connections
    parallel(threads, 300, i -> store.put(draft(collection + "-warm", i), Optional.empty()));
    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    parallel(threads, n, i -> store.put(draft(collection, i), Optional.empty()));
    return new Row(what, backend, threads, n, (System.nanoTime() - t0) / 1e9, (cpuNanos() - c0) / 1e9);
  }

  private static Row gets(String what, String backend, Store store, int threads, int n, String collection)
      throws Exception {
    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    parallel(threads, n, i -> {
      if (store.get(new RecordKey("benchput", collection, "r" + i)).isEmpty()) {
        throw new IllegalStateException("missing benchput/" + collection + "/r" + i);
      }
      return null;
    });
    return new Row(what, backend, threads, n, (System.nanoTime() - t0) / 1e9, (cpuNanos() - c0) / 1e9);
  }

  private interface Op {
    Object run(int i) throws Exception;
  }

  private static void parallel(int threads, int n, Op op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicInteger next = new AtomicInteger();
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      fs.add(pool.submit(() -> {
        for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
          Object r = op.run(i);
          if (r instanceof PutResult p && !(p instanceof Committed)) {
            throw new IllegalStateException("put " + i + " was " + p);
          }
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    pool.shutdown();
  }

  private static Row sync(String what, String backend, Path fromDir, Store to, int n) {
    Fill.records(fromDir, n, 10);
    FsStore from = Fill.open(fromDir, Durability.NO_FSYNC);
    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    // Fill writes namespace bench; the put rows wrote benchput on the same server, left out here
    SyncReport r = Sync.run(from, to, KeyPrefix.namespace("bench"), SyncOptions.DEFAULTS);
    double s = (System.nanoTime() - t0) / 1e9;
    double cpu = (cpuNanos() - c0) / 1e9;
    if (r.copied() != n || !r.converged()) {
      throw new IllegalStateException("unexpected sync report " + r);
    }
    return new Row(what, backend, 1, n, s, cpu);
  }

  /** CPU time used by this JVM so far, ns (all threads, user and system). */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String schema(String pg, List<String> schemas) throws Exception {
    String name = "lethe_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + name);
    }
    schemas.add(name);
    return pg + (pg.contains("?") ? "&" : "?") + "currentSchema=" + name;
  }

  private static void drop(String pg, String schema) throws Exception {
    try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }
}
