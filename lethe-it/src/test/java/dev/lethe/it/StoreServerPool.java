package dev.lethe.it;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.testing.MutableClock;
import dev.lethe.store.grpc.GrpcStore;
import dev.lethe.store.remote.RemoteStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Real {@code lethe server} processes for the store conformance suite over HTTP
 * (docs/design/0104-remote-store-client.md) or gRPC (docs/design/0141-grpc-transport.md). A test may open several stores, with several caps;
 * each is a server of its own, started the first time a test needs it and kept for the next
 * tests, which find it emptied: between tests its store is wiped from outside (the files of a
 * {@code file:} store, the tables of a PostgreSQL one) while it is idle. Every server reads its
 * store's clock from a file of its own ({@code lethe.store.testing.clock-file}): {@link
 * #setClock} writes the suite's time to each server's, except while a test has opened the server
 * with a clock of its own ({@link #open(int, MutableClock)}), which then writes it, so a test can
 * give two stores two clocks.
 */
final class StoreServerPool implements AutoCloseable {

  /** The substrate behind the servers. */
  enum Backend { FILE, POSTGRESQL }

  /** How the stores reach their servers. */
  enum Transport { HTTP, GRPC }

  private record Server(int cap, LetheProcess process, int grpcPort, Path dataDir, Optional<Backends.Fresh> database,
      Path clockFile) {}

  private final Backend backend;
  private final Transport transport;
  private final Path work;
  private volatile long sharedMs;
  /** The clock each server follows in this test, if not the suite's. */
  private final Map<Server, MutableClock> following = new java.util.concurrent.ConcurrentHashMap<>();
  private final Map<MutableClock, Boolean> hooked = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());
  private final List<Server> servers = new ArrayList<>();
  private final List<Server> inUse = new ArrayList<>();
  private final Map<Store, Server> opened = new java.util.IdentityHashMap<>();

  StoreServerPool(Backend backend, Path work) throws IOException {
    this(backend, Transport.HTTP, work);
  }

  StoreServerPool(Backend backend, Transport transport, Path work) throws IOException {
    this.backend = backend;
    this.transport = transport;
    this.work = Files.createDirectories(work);
    setClock(System.currentTimeMillis());
  }

  /** Writes the servers' "now" (ms since the epoch), atomically, to every server not following a clock of its own. */
  void setClock(long ms) {
    sharedMs = ms;
    synchronized (servers) {
      for (Server s : servers) {
        if (!following.containsKey(s)) {
          writeClock(s.clockFile(), ms);
        }
      }
    }
  }

  private static synchronized void writeClock(Path file, long ms) {
    try {
      Path tmp = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), Long.toString(ms));
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Empties the stores the previous test used; the next {@link #open} calls hand them out again. */
  void beginTest() throws Exception {
    for (Server s : inUse) {
      wipe(s);
    }
    for (Store store : opened.keySet()) {
      if (store instanceof AutoCloseable c) {
        c.close();
      }
    }
    inUse.clear();
    opened.clear();
    following.clear();
    synchronized (servers) {
      servers.forEach(s -> writeClock(s.clockFile(), sharedMs));
    }
  }

  /**
   * {@link #open(int)}, the server's store following {@code clock} until the next {@link
   * #beginTest} instead of the suite's clock.
   */
  Store open(int cap, MutableClock clock) throws Exception {
    Store store = open(cap);
    Server server = opened.get(store);
    following.put(server, clock);
    writeClock(server.clockFile(), clock.millis());
    if (hooked.putIfAbsent(clock, Boolean.TRUE) == null) {
      clock.onChange(ms -> following.forEach((s, c) -> {
        if (c == clock) {
          writeClock(s.clockFile(), ms);
        }
      }));
    }
    return store;
  }

  /** A store on a server with this cap that no store opened in this test uses yet. */
  Store open(int cap) throws Exception {
    Server server = servers.stream().filter(s -> s.cap() == cap && !inUse.contains(s)).findFirst().orElse(null);
    if (server == null) {
      server = start(cap);
      synchronized (servers) {
        servers.add(server);
      }
    }
    inUse.add(server);
    Store store = transport == Transport.GRPC
        ? GrpcStore.open("grpc://127.0.0.1:" + server.grpcPort(), Optional.empty())
        : RemoteStore.open("http://127.0.0.1:" + server.process().port(), Optional.empty());
    opened.put(store, server);
    return store;
  }

  /**
   * The directory of the {@code file:} store behind a store {@link #open} returned, for a test
   * that edits a record file by hand.
   */
  Path storeDir(Store store) {
    if (backend != Backend.FILE) {
      throw new IllegalStateException("the servers of this pool keep their records in a database");
    }
    return opened.get(store).dataDir().resolve("store");
  }

  private Server start(int cap) throws Exception {
    int n = servers.size();
    Path dataDir = work.resolve("server-" + n);
    List<String> args = new ArrayList<>();
    Optional<Backends.Fresh> database = Optional.empty();
    if (backend == Backend.POSTGRESQL) {
      database = Optional.of(Backends.createOrSkip("postgresql"));
      args.addAll(List.of("--store-uri", database.get().jdbcUrl()));
    }
    Map<String, String> env = new HashMap<>();
    env.put("LETHE_STORE_ANCESTOR_CAP", Integer.toString(cap));
    Path clockFile = work.resolve("server-" + n + ".clock");
    writeClock(clockFile, sharedMs);
    env.put("LETHE_STORE_TESTING_CLOCK_FILE", clockFile.toString());
    env.put("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0");
    int grpcPort = transport == Transport.GRPC ? freePort() : 0;
    env.put("LETHE_STORE_GRPC_PORT", Integer.toString(grpcPort));
    LetheProcess process = LetheProcess.start(freePort(), dataDir, work.resolve("server-" + n + ".log"), args, env);
    return new Server(cap, process, grpcPort, dataDir, database, clockFile);
  }

  private void wipe(Server s) throws Exception {
    if (s.database().isPresent()) {
      try (Connection c = DriverManager.getConnection(s.database().get().jdbcUrl()); Statement st = c.createStatement()) {
        st.execute("TRUNCATE lethe_store_record, lethe_store_blob, lethe_store_meta, lethe_store_peer, lethe_store_purge_log");
      }
      return;
    }
    Path store = s.dataDir().resolve("store");
    try (Stream<Path> files = Files.walk(store)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(store)) {
          Files.delete(p);
        }
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    beginTest();
    for (Server s : servers) {
      s.process().close();
      if (s.database().isPresent()) {
        s.database().get().drop();
      }
    }
    servers.clear();
  }
}
