package dev.lethe.store.soak;

import static org.awaitility.Awaitility.await;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HA soak (docs/design/0145-ha-soak.md): starts the replicas, runs the writers and the chaos
 * loop for the duration, stops both, lets the replicas settle, reads every replica's answers and
 * hands the recorded history to the {@link Oracle}.
 */
public final class Soak {

  /**
   * A finished run.
   *
   * @param verdict the oracle's counts
   * @param elapsed the writing phase's length
   * @param errors calls given up (no replica answered within the retry limit) or failed otherwise
   * @param firstError the first such failure's message, or null
   */
  public record Result(Oracle.Verdict verdict, Duration elapsed, long errors, String firstError) {
    /** Whether every row is 0. */
    public boolean passed() {
      return verdict.passed();
    }
  }

  private Soak() {}

  /**
   * Runs a soak.
   *
   * @throws IOException if the work directory cannot be written or a replica cannot be started
   * @throws InterruptedException if interrupted; the replicas are stopped
   */
  public static Result run(SoakOptions o) throws IOException, InterruptedException {
    Path work = Files.createDirectories(o.workDir());
    // a fresh namespace per run, so a shared database's earlier runs are not judged
    String namespace = "soak-" + Long.toUnsignedString(o.seed(), 36) + "-" + System.currentTimeMillis();
    String storeUri = switch (o.backend()) {
      case FILE -> "file:" + Files.createDirectories(work.resolve("shared-store"));
      case POSTGRESQL -> o.jdbcUrl();
      // a prefix of its own per run, so earlier runs in the bucket are not listed
      case S3 -> o.s3().storeUri(namespace);
    };
    Map<String, String> settings = o.s3() == null ? Map.of() : o.s3().settings();
    History history = new History();
    AtomicLong errors = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    try (Replicas replicas = new Replicas(o.replicas(), o.serverCommand(), storeUri, settings, o.transports(), work)) {
      replicas.startAll();
      List<Store> locals = List.of(o.opener().open("file:" + Files.createDirectories(work.resolve("client-a"))),
          o.opener().open("file:" + Files.createDirectories(work.resolve("client-b"))));
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(o.writers() + 1);
      long started = System.nanoTime();
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < o.writers(); w++) {
        Transport t = o.transports().get(w % o.transports().size());
        List<RecordingStore> stores = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
          stores.add(new RecordingStore(o.clientStore().apply(o.opener().open(replicas.uri(i, t))), w, history, false));
        }
        Writer writer = new Writer(w, namespace, new Client(stores, o.seed() + 7919L * w), locals, o.seed(), stop::get, e -> {
          errors.incrementAndGet();
          firstError.compareAndSet(null, e.toString());
        });
        writers.add(pool.submit(writer));
      }
      AtomicInteger kills = new AtomicInteger();
      Future<?> chaos = o.killEvery().isZero() ? null : pool.submit(() -> chaos(replicas, o, stop, kills));
      await("the soak's duration").atMost(o.duration().plusMinutes(1)).pollDelay(o.duration()).until(() -> true);
      stop.set(true);
      Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
      for (Future<?> f : writers) {
        join(f);
      }
      if (chaos != null) {
        join(chaos);
      }
      pool.shutdown();
      // the quiet period: nobody writes, every replica is up
      replicas.reviveAll();
      FinalState end = finalState(replicas, o, namespace);
      Oracle.Verdict verdict = Oracle.judge(history.events(), end, new RunFacts(o.writers(), chaos != null, kills.get()));
      return new Result(verdict, elapsed, errors.get(), firstError.get());
    }
  }

  private static void join(Future<?> f) throws InterruptedException {
    try {
      f.get(Client.RETRY_LIMIT.toSeconds() * 3, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Cannot finish the soak: a writer or the chaos loop failed: " + e.getCause(), e);
    }
  }

  /**
   * Every {@code killEvery}, kills a seeded random replica with SIGKILL and starts it again at
   * once, without waiting for it: a kill may hit a replica still starting. A round is skipped when
   * no other replica answers, so one replica at least keeps serving.
   */
  private static Void chaos(Replicas replicas, SoakOptions o, AtomicBoolean stop, AtomicInteger kills) throws Exception {
    Random rng = new Random(o.seed() ^ 0x5DEECE66DL);
    while (!stop.get()) {
      await("the next kill").atMost(o.killEvery().plusMinutes(1)).pollDelay(o.killEvery()).until(() -> true);
      if (stop.get()) {
        break;
      }
      int victim = rng.nextInt(replicas.size());
      boolean another = false;
      for (int i = 0; i < replicas.size() && !another; i++) {
        another = i != victim && replicas.healthy(i);
      }
      if (!another && replicas.size() > 1) {
        continue;
      }
      replicas.kill(victim);
      kills.incrementAndGet();
      replicas.relaunch(victim);
    }
    return null;
  }

  private static FinalState finalState(Replicas replicas, SoakOptions o, String namespace) {
    List<Map<RecordKey, Record>> raw = new ArrayList<>();
    List<Map<RecordKey, Record>> consumer = new ArrayList<>();
    KeyPrefix prefix = KeyPrefix.namespace(namespace);
    for (int i = 0; i < replicas.size(); i++) {
      Store s = o.opener().open(replicas.uri(i, o.transports().get(0)));
      raw.add(byKey(await("replica " + i + " listing").atMost(Client.RETRY_LIMIT).pollDelay(Duration.ZERO)
          .ignoreExceptionsInstanceOf(UncheckedIOException.class).until(() -> s.listRaw(prefix), l -> true)));
      consumer.add(byKey(await("replica " + i + " listing").atMost(Client.RETRY_LIMIT).pollDelay(Duration.ZERO)
          .ignoreExceptionsInstanceOf(UncheckedIOException.class).until(() -> s.list(prefix), l -> true)));
    }
    return new FinalState(raw, consumer);
  }

  private static Map<RecordKey, Record> byKey(List<Record> records) {
    Map<RecordKey, Record> m = new TreeMap<>();
    records.forEach(r -> m.put(r.key(), r));
    return m;
  }

  /** Prints the summary table: every row with its count, then the run's other counts and the first violations. */
  public static void print(Result result, SoakOptions o, PrintWriter out) {
    out.printf("soak: seed %d, %s, %d replicas, %d writers, backend %s, transports %s%n", o.seed(),
        o.duration(), o.replicas(), o.writers(), o.backend().name().toLowerCase(java.util.Locale.ROOT),
        o.transports().stream().map(Transport::name).toList());
    out.printf("%-28s %10s%n", "row", "count");
    result.verdict().counts().forEach((row, count) -> out.printf("%-28s %10d%n", row, count));
    out.println();
    result.verdict().info().forEach((name, count) -> out.printf("%-36s %10d%n", name, count));
    out.printf("%-36s %10d%n", "calls given up or failed", result.errors());
    if (result.firstError() != null) {
      out.println("first failure: " + result.firstError());
    }
    result.verdict().examples().forEach(e -> out.println("violation: " + e));
    out.println(result.passed() ? "soak: passed" : "soak: FAILED");
    out.flush();
  }
}
