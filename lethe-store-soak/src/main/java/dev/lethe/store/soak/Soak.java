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
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
   * @param facts the run's shape the oracle judged with: writers, and the chaos loop's kills
   */
  public record Result(Oracle.Verdict verdict, Duration elapsed, long errors, String firstError, RunFacts facts) {
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
      CountDownLatch stopped = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(o.writers() + 1);
      long started = System.nanoTime();
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < o.writers(); w++) {
        Transport t = o.transports().get(w % o.transports().size());
        List<RecordingStore> stores = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
          stores.add(new RecordingStore(o.clientStore().apply(o.opener().open(replicas.uri(i, t))), w, history, false));
        }
        Writer writer = new Writer(w, namespace, new Client(stores, o.seed() + 7919L * w), locals, o.seed(),
            () -> stopped.getCount() == 0, e -> {
          errors.incrementAndGet();
          firstError.compareAndSet(null, e.toString());
        });
        writers.add(pool.submit(writer));
      }
      AtomicInteger kills = new AtomicInteger();
      AtomicInteger servingKills = new AtomicInteger();
      Future<?> chaos = o.killEvery().isZero() ? null : pool.submit(() -> chaos(replicas, o, stopped, kills, servingKills));
      await("the soak's duration").atMost(o.duration().plusMinutes(1)).pollDelay(o.duration()).until(() -> true);
      stopped.countDown();
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
      RunFacts facts = new RunFacts(o.writers(), chaos != null, kills.get(), servingKills.get(),
          ChaosPlanner.servingKillsRequired(o.duration(), o.killEvery()));
      return new Result(Oracle.judge(history.events(), end, facts), elapsed, errors.get(), firstError.get(), facts);
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
   * The chaos loop (docs/design/0145-ha-soak.md "Chaos"): waits until a replica may be killed, then
   * {@code killEvery} more, then kills with SIGKILL the replica {@link ChaosPlanner#victim} picks
   * among those serving at that moment, and starts it again at once. A replica still starting is
   * never killed; it becomes a candidate again once it answers.
   */
  private static Void chaos(Replicas replicas, SoakOptions o, CountDownLatch stopped, AtomicInteger kills,
      AtomicInteger servingKills) throws Exception {
    Random rng = new Random(o.seed() ^ 0x5DEECE66DL);
    while (awaitVictim(replicas, o.keepServing(), stopped) && !stopped.await(o.killEvery().toMillis(), TimeUnit.MILLISECONDS)) {
      OptionalInt victim = ChaosPlanner.victim(replicas.serving(), o.keepServing(), rng::nextInt);
      if (victim.isEmpty()) {
        // a replica stopped answering meanwhile: wait for a victim, and the interval, again
        continue;
      }
      int v = victim.getAsInt();
      // measured apart from the pick, so the summary says what the kill hit rather than what was planned
      boolean serving = replicas.serving(v);
      replicas.kill(v);
      kills.incrementAndGet();
      if (serving) {
        servingKills.incrementAndGet();
      }
      replicas.relaunch(v);
    }
    return null;
  }

  /**
   * Waits until some replica may be killed (a restarted one has come up), for at most {@link
   * Replicas#START_LIMIT}.
   *
   * @return false when the run stopped first
   * @throws IllegalStateException when a replica exited by itself or none came up in time
   */
  private static boolean awaitVictim(Replicas replicas, int keepServing, CountDownLatch stopped) throws InterruptedException {
    long deadline = System.nanoTime() + Replicas.START_LIMIT.toNanos();
    while (ChaosPlanner.victim(replicas.serving(), keepServing, n -> 0).isEmpty()) {
      replicas.requireRunning();
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("Cannot go on killing replicas: none may be killed after " + Replicas.START_LIMIT
            + " (restarted replicas do not answer /healthz; see replica-N.log in the work directory)");
      }
      if (stopped.await(200, TimeUnit.MILLISECONDS)) {
        return false;
      }
    }
    return true;
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
    RunFacts facts = result.facts();
    if (facts.chaos()) {
      out.printf("replicas killed while serving: %d of %d (at least %d required)%n", facts.servingKills(), facts.kills(),
          facts.servingKillsRequired());
    } else {
      out.println("replicas killed while serving: chaos off");
    }
    out.printf("%-36s %10d%n", "calls given up or failed", result.errors());
    if (result.firstError() != null) {
      out.println("first failure: " + result.firstError());
    }
    result.verdict().examples().forEach(e -> out.println("violation: " + e));
    out.println(result.passed() ? "soak: passed" : "soak: FAILED");
    out.flush();
  }
}
