package dev.lethe.store.s3.qualify;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * The {@code lethe store qualify-s3} probe (docs/design/0131-qualify-s3-probe.md): whether a server
 * keeps the promises the S3 store needs for several writers. Each property races {@code racers}
 * threads released together, for {@code rounds} rounds, on keys of its own under a run prefix it
 * removes at the end; a promise holds only if it held in every round.
 *
 * <ul>
 *   <li>{@code create-if-absent}: of N {@code If-None-Match: *} PUTs of one absent key exactly one
 *       wins and the object holds the winner's bytes;
 *   <li>{@code update-if-match}: of N PUTs naming the key's one ETag exactly one wins, likewise;
 *   <li>{@code delete-if-match-vs-create}: a {@code DELETE If-Match} and a {@code PUT If-Match} of
 *       the same ETag (a purge against a recreation): never both win, and the object ends as the
 *       winner left it;
 *   <li>{@code if-match-on-missing-key}: a {@code PUT If-Match} of an absent key is refused and
 *       writes nothing.
 * </ul>
 */
public final class Qualification {

  /** Racers per round unless told otherwise. */
  public static final int DEFAULT_RACERS = 32;
  /** Rounds per property unless told otherwise. */
  public static final int DEFAULT_ROUNDS = 10;

  private final ConditionalObjects objects;
  private final String runPrefix;
  private final int racers;
  private final int rounds;
  /** Racing requests the server failed (an error answer, not a lost condition) in the current property. */
  private final java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();

  /**
   * @param objects the server, reached as the store would reach it
   * @param base the key prefix the probe may write under (the store's prefix, ending in {@code /}, or empty)
   * @param racers concurrent writers per round, at least 2
   * @param rounds rounds per property, at least 1
   * @throws IllegalArgumentException as {@link #checkCounts}
   */
  public Qualification(ConditionalObjects objects, String base, int racers, int rounds) {
    checkCounts(racers, rounds);
    this.objects = objects;
    this.runPrefix = base + "lethe/qualify-s3/" + UUID.randomUUID() + "/";
    this.racers = racers;
    this.rounds = rounds;
  }

  /**
   * Checks the probe's counts before anything is sent.
   *
   * @throws IllegalArgumentException for fewer than 2 racers, more than 1000, or fewer than 1 round
   */
  public static void checkCounts(int racers, int rounds) {
    if (racers < 2 || racers > 1000) {
      throw new IllegalArgumentException("Invalid racers " + racers + ": 2 to 1000 (a race needs two)");
    }
    if (rounds < 1 || rounds > 10_000) {
      throw new IllegalArgumentException("Invalid rounds " + rounds + ": 1 to 10000");
    }
  }

  /** Runs every property and removes the probe's keys, even when a request fails. */
  public List<Property> run() {
    ExecutorService pool = Executors.newFixedThreadPool(racers, r -> {
      Thread t = new Thread(r, "lethe-qualify-s3");
      t.setDaemon(true);
      return t;
    });
    try {
      return List.of(createIfAbsent(pool), updateIfMatch(pool), deleteVersusCreate(pool), ifMatchOnMissingKey());
    } finally {
      pool.shutdownNow();
      objects.keys(runPrefix).forEach(objects::delete);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Property createIfAbsent(ExecutorService pool) {
    TreeMap<Integer, Integer> winnersSeen = new TreeMap<>();
    int bad = 0;
    for (int round = 0; round < rounds; round++) {
      String key = runPrefix + "create-" + round;
      List<Optional<String>> results = race(pool, i -> () -> objects.createIfAbsent(key, bytes("racer " + i)), Optional.empty());
      int winners = winners(results);
      winnersSeen.merge(winners, 1, Integer::sum);
      if (winners != 1 || !holdsWinner(key, results)) {
        bad++;
      }
    }
    return new Property("create-if-absent", bad == 0, racers + " racers x " + rounds + " rounds: "
        + (bad == 0 ? "exactly one winner in every round" : bad + " of " + rounds + " rounds wrong, winners per round "
        + winnersSeen) + failedRequests());
  }

  private Property updateIfMatch(ExecutorService pool) {
    TreeMap<Integer, Integer> winnersSeen = new TreeMap<>();
    int bad = 0;
    for (int round = 0; round < rounds; round++) {
      String key = runPrefix + "update-" + round;
      String etag = objects.createIfAbsent(key, bytes("base")).orElseThrow(
          () -> new IllegalStateException("the probe's own fresh key " + key + " already exists"));
      List<Optional<String>> results = race(pool, i -> () -> objects.replaceIfMatch(key, etag, bytes("racer " + i)), Optional.empty());
      int winners = winners(results);
      winnersSeen.merge(winners, 1, Integer::sum);
      if (winners != 1 || !holdsWinner(key, results)) {
        bad++;
      }
    }
    return new Property("update-if-match", bad == 0, racers + " racers x " + rounds + " rounds: "
        + (bad == 0 ? "exactly one winner in every round" : bad + " of " + rounds + " rounds wrong, winners per round "
        + winnersSeen) + failedRequests());
  }

  /** Half the racers purge (DELETE If-Match), half recreate (PUT If-Match) the same ETag. */
  private Property deleteVersusCreate(ExecutorService pool) {
    int violations = 0;
    for (int round = 0; round < rounds; round++) {
      String key = runPrefix + "purge-" + round;
      String etag = objects.createIfAbsent(key, bytes("tombstone")).orElseThrow(
          () -> new IllegalStateException("the probe's own fresh key " + key + " already exists"));
      List<Optional<String>> results = race(pool, i -> () -> i % 2 == 0
          ? (objects.deleteIfMatch(key, etag) ? Optional.of("deleted") : Optional.empty())
          : objects.replaceIfMatch(key, etag, bytes("racer " + i)), Optional.empty());
      int winners = winners(results);
      Optional<byte[]> now = objects.read(key);
      boolean deleteWon = winners == 1 && results.stream().anyMatch(r -> r.isPresent() && r.get().equals("deleted"));
      boolean consistent = winners == 1 && (deleteWon ? now.isEmpty() : holdsWinner(key, results));
      if (!consistent) {
        violations++;
      }
    }
    return new Property("delete-if-match-vs-create", violations == 0, racers + " racers x " + rounds
        + " rounds: violations " + violations + " of " + rounds + failedRequests());
  }

  private Property ifMatchOnMissingKey() {
    String key = runPrefix + "missing";
    Optional<String> won = objects.replaceIfMatch(key, "\"0123456789abcdef0123456789abcdef\"", bytes("x"));
    boolean written = objects.read(key).isPresent();
    boolean holds = won.isEmpty() && !written;
    return new Property("if-match-on-missing-key", holds,
        holds ? "refused, nothing written" : "accepted" + (written ? ", object written" : ""));
  }

  /** {@code , N requests failed} when the server failed racing requests since the last call; resets the count. */
  private String failedRequests() {
    int n = failed.getAndSet(0);
    return n == 0 ? "" : ", " + n + " racing requests failed with an error";
  }

  private static int winners(List<Optional<String>> results) {
    return (int) results.stream().filter(Optional::isPresent).count();
  }

  /** Whether the object holds the bytes of the round's one winner. */
  private boolean holdsWinner(String key, List<Optional<String>> results) {
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i).isPresent()) {
        Optional<byte[]> now = objects.read(key);
        return now.isPresent() && Arrays.equals(now.get(), bytes("racer " + i));
      }
    }
    return false;
  }

  /** Runs {@code racers} calls released together; returns their results in racer order. */
  private <T> List<T> race(ExecutorService pool, IntFunction<Callable<T>> racer, T lost) {
    CountDownLatch ready = new CountDownLatch(racers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> running = new ArrayList<>(racers);
    for (int i = 0; i < racers; i++) {
      Callable<T> call = racer.apply(i);
      running.add(pool.submit(() -> {
        ready.countDown();
        go.await();
        try {
          return call.call();
        } catch (java.io.UncheckedIOException e) {
          // a server that fails a request under a race (S3Mock answers 500) did not let it win
          failed.incrementAndGet();
          return lost;
        }
      }));
    }
    List<T> out = new ArrayList<>(racers);
    try {
      ready.await();
      go.countDown();
      for (Future<T> f : running) {
        out.add(f.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while racing", e);
    } catch (ExecutionException e) {
      running.forEach(f -> f.cancel(true));
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
    }
    return out;
  }
}
