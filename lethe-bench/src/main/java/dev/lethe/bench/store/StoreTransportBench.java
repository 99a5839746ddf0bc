package dev.lethe.bench.store;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.grpc.GrpcStore;
import dev.lethe.store.remote.RemoteStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
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
 * The store's transports side by side (docs/benchmarks.md "Store over gRPC";
 * docs/design/0141-grpc-transport.md): puts and gets on one {@code lethe server} (in this JVM)
 * on PostgreSQL, in-process (its own {@link Store}), over HTTP ({@link RemoteStore}) and over
 * gRPC ({@link GrpcStore}), with 1 and 8 client threads, in one run. Run by hand, never in CI:
 *
 * <pre>
 * java -Xmx1g -cp lethe-bench/target/lethe-bench.jar dev.lethe.bench.store.StoreTransportBench \
 *     --pg 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres' --ops 4000
 * </pre>
 *
 * The store lives in a schema of its own, dropped at the end.
 */
public final class StoreTransportBench {
  private StoreTransportBench() {}

  private record Row(String what, String transport, int threads, long ops, double seconds) {
    double rate() {
      return ops / seconds;
    }
  }

  public static void main(String[] args) throws Exception {
    String pg = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    int ops = 4_000;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--pg" -> pg = args[++i];
        case "--ops" -> ops = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("Unknown argument " + args[i] + "; expected --pg JDBC_URL, --ops N");
      }
    }
    String schema = "lethe_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    String url = pg + (pg.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    List<Row> rows = new ArrayList<>();
    Path root = Dirs.fresh("store-transport");
    try (LetheServer server = LetheServer.start(new ServerConfig("127.0.0.1", 0, root.resolve("data"), null, null, null,
        4, null, ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null,
        Map.of(ConfigKeys.STORE_URI, url, ConfigKeys.STORE_POOL_SIZE, "16", ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
        GrpcStore grpc = GrpcStore.open(server.grpcStoreUri(), Optional.empty())) {
      Store http = RemoteStore.open("http://127.0.0.1:" + server.port(), Optional.empty());
      Map<String, Store> transports = new java.util.LinkedHashMap<>();
      transports.put("in-process", server.store());
      transports.put("HTTP", http);
      transports.put("gRPC", grpc);
      for (int threads : new int[] {1, 8}) {
        for (Map.Entry<String, Store> t : transports.entrySet()) {
          String collection = t.getKey().replaceAll("[^A-Za-z]", "") + threads;
          rows.add(print(puts(t.getKey(), t.getValue(), threads, ops, collection)));
          rows.add(print(gets(t.getKey(), t.getValue(), threads, ops, collection)));
        }
      }
    } finally {
      try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
      Dirs.remove(root);
    }
    System.out.printf("%n| operation | transport | client threads | ops | seconds | ops/s |%n|---|---|---:|---:|---:|---:|%n");
    for (Row r : rows) {
      System.out.printf("| %s | %s | %d | %,d | %.2f | %,.0f |%n", r.what(), r.transport(), r.threads(), r.ops(),
          r.seconds(), r.rate());
    }
  }

  private static Row print(Row r) {
    System.out.printf("measured: %s %s, %d threads: %,d in %.2f s = %,.0f/s%n", r.what(), r.transport(), r.threads(),
        r.ops(), r.seconds(), r.rate());
    return r;
  }

  private static Record draft(String collection, int i) {
    return Record.draft(new RecordKey("benchput", collection, "r" + i), Kind.DOCUMENT,
        Body.Inline.text("record " + i + " " + "x".repeat(100)), Meta.byAuthor("bench"));
  }

  private static Row puts(String transport, Store store, int threads, int n, String collection) throws Exception {
    // untimed warm-up: compiled code, open connections
    parallel(threads, 300, i -> store.put(draft(collection + "-warm", i), Optional.empty()));
    long t0 = System.nanoTime();
    parallel(threads, n, i -> store.put(draft(collection, i), Optional.empty()));
    return new Row("put", transport, threads, n, (System.nanoTime() - t0) / 1e9);
  }

  private static Row gets(String transport, Store store, int threads, int n, String collection) throws Exception {
    long t0 = System.nanoTime();
    parallel(threads, n, i -> {
      if (store.get(new RecordKey("benchput", collection, "r" + i)).isEmpty()) {
        throw new IllegalStateException("missing benchput/" + collection + "/r" + i);
      }
      return null;
    });
    return new Row("get", transport, threads, n, (System.nanoTime() - t0) / 1e9);
  }

  private interface Op {
    Object run(int i) throws Exception;
  }

  private static void parallel(int threads, int n, Op op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
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
    } finally {
      pool.shutdown();
    }
  }
}
