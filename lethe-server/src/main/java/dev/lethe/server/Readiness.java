package dev.lethe.server;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseUnavailable;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code GET /readyz} answers (docs/design/0430-health-that-tells-the-truth.md): whether this
 * process can serve catalog and store requests now, check by check. {@code /healthz} stays the
 * liveness answer (the process is up).
 *
 * <p>The checks, in this order: {@code catalog-database} (answers and accepts writes, and an
 * embedded H2 database's directory takes a written byte), {@code store} (a read of an absent key
 * reaches it, and a local store's directory takes a written byte), {@code warehouse} (the local
 * warehouse of catalog {@code main} takes a written byte; passes for an object store) and
 * {@code purge-workers} (the worker pool runs). They run concurrently, each bounded by
 * {@link #TIMEOUT_MS}; a check still running from an earlier probe is awaited, not started again. A failure's message names no absolute path: the route needs no token.
 */
final class Readiness implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);

  /** How long one check may take before it counts as failed, in ms. */
  static final long TIMEOUT_MS = 2_000;

  /**
   * One check's outcome.
   *
   * @param name the check's fixed name, e.g. {@code catalog-database}
   * @param ok whether it passed
   * @param message one line: what was found; never an absolute path
   */
  record Check(String name, boolean ok, String message) {}

  /** Every check of one probe, in the order of the class comment; ready when all passed. */
  record Report(List<Check> checks) {
    boolean ready() {
      return checks.stream().allMatch(Check::ok);
    }

    /** The JSON body: {@code {"status": "ready"|"not ready", "checks": {name: {"status": "ok"|"failed", "message"}}}}. */
    Map<String, Object> body() {
      Map<String, Object> named = new LinkedHashMap<>();
      for (Check c : checks) {
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("status", c.ok() ? "ok" : "failed");
        one.put("message", c.message());
        named.put(c.name(), one);
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("status", ready() ? "ready" : "not ready");
      body.put("checks", named);
      return body;
    }
  }

  private interface Probe {
    /** @return the message of a pass; a failure throws */
    String run() throws Exception;
  }

  private final Map<String, Probe> probes = new LinkedHashMap<>();
  /** Each check's run still going, which the next probe waits for instead of starting another. */
  private final Map<String, CompletableFuture<String>> inFlight = new java.util.concurrent.ConcurrentHashMap<>();
  // one thread per check: a check hung in a dead database holds its own until the driver gives up,
  // never a request thread, and never another check's
  private final ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
    Thread t = new Thread(r, "lethe-readiness");
    t.setDaemon(true);
    return t;
  });
  private final AtomicReference<Boolean> lastReady = new AtomicReference<>();

  /**
   * @param h2Directory the embedded H2 database's directory, empty for any other database
   * @param storeDirectory a {@code file:}/{@code git:} store's directory, empty for another store
   * @param warehouse catalog {@code main}'s local warehouse directory, empty for an object store
   * @param workersRunning whether the purge worker pool runs
   */
  Readiness(CatalogDatabase database, Optional<Path> h2Directory, Store store, Optional<Path> storeDirectory,
      Optional<Path> warehouse, BooleanSupplier workersRunning) {
    probes.put("catalog-database", () -> {
      database.checkWritable();
      h2Directory.ifPresent(dir -> WritablePaths.probe(new WritablePaths.Target("H2 database directory", dir, false)));
      return "reachable and writable";
    });
    probes.put("store", () -> {
      store.get(new RecordKey("lethe", "readiness", "probe"));
      storeDirectory.ifPresent(dir -> WritablePaths.probe(new WritablePaths.Target("store directory", dir, false)));
      return "reachable";
    });
    probes.put("warehouse", () -> {
      if (warehouse.isEmpty()) {
        return "not a local directory; not probed";
      }
      WritablePaths.probe(new WritablePaths.Target("warehouse directory", warehouse.get(), false));
      return "writable";
    });
    probes.put("purge-workers", () -> {
      if (!workersRunning.getAsBoolean()) {
        throw new IllegalStateException("the purge worker pool is not running");
      }
      return "running";
    });
  }

  /** Runs every check now; logs a line when the answer changes from the previous probe's. */
  Report check() {
    Map<String, CompletableFuture<String>> running = new LinkedHashMap<>();
    probes.forEach((name, probe) -> running.put(name, inFlight.compute(name, (n, previous) ->
        previous != null && !previous.isDone() ? previous : CompletableFuture.supplyAsync(() -> {
          try {
            return probe.run();
          } catch (RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
        }, pool))));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
    List<Check> checks = new ArrayList<>();
    running.forEach((name, future) -> checks.add(outcome(name, future, deadline)));
    Report report = new Report(List.copyOf(checks));
    Boolean before = lastReady.getAndSet(report.ready());
    if (before == null || before != report.ready()) {
      if (report.ready()) {
        LOG.info("Ready: every check passed");
      } else {
        LOG.warn("Not ready: {}", report.checks().stream().filter(c -> !c.ok())
            .map(c -> c.name() + ": " + c.message()).toList());
      }
    }
    return report;
  }

  private static Check outcome(String name, CompletableFuture<String> future, long deadline) {
    try {
      return new Check(name, true, future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return new Check(name, false, "no answer within " + TIMEOUT_MS + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Check(name, false, "interrupted");
    } catch (ExecutionException e) {
      return new Check(name, false, failure(name, e.getCause()));
    }
  }

  /** A failed check's one line: the database family's own text, else the failure's first line; no absolute path. */
  static String failure(String name, Throwable e) {
    Optional<String> unavailable = DatabaseUnavailable.message(e);
    if (unavailable.isPresent()) {
      return unavailable.get();
    }
    String text = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    int nl = text.indexOf('\n');
    text = nl < 0 ? text : text.substring(0, nl);
    if (name.equals("catalog-database") && !text.startsWith(DatabaseUnavailable.PREFIX)) {
      text = DatabaseUnavailable.PREFIX + text;
    }
    return DatabaseUnavailable.withoutPaths(text);
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
