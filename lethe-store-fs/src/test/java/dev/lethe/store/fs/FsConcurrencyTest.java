package dev.lethe.store.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real concurrency on one fs store: threads in this JVM, and two separate JVM processes. */
class FsConcurrencyTest {

  private static final int THREADS = 16;
  private static final int ROUNDS = 25;

  @TempDir Path root;
  private final RecordKey key = new RecordKey("ns", "col", "hot");
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private static Record draft(RecordKey k, String text) {
    return Record.draft(k, Kind.DOCUMENT, Body.Inline.text(text), Meta.EMPTY);
  }

  @Test
  void sixteenThreadsPuttingOverTheSameExpectedRevisionCommitExactlyOncePerRound() throws Exception {
    FsStore store = new FsStore(root, 32, Clock.systemUTC());
    Record current = ((Committed) store.put(draft(key, "start"), Optional.empty())).record();
    CyclicBarrier barrier = new CyclicBarrier(THREADS);
    for (int round = 0; round < ROUNDS; round++) {
      Revision expected = current.revision();
      List<Future<Object>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        String text = "round " + round + " thread " + t;
        results.add(pool.submit(() -> {
          barrier.await();
          return store.put(draft(key, text), Optional.of(expected));
        }));
      }
      List<Record> winners = new ArrayList<>();
      for (Future<Object> f : results) {
        if (f.get(30, TimeUnit.SECONDS) instanceof Committed c) {
          winners.add(c.record());
        }
      }
      assertThat(winners).as("round %d", round).hasSize(1);
      current = store.get(key).orElseThrow();
      assertThat(current).isEqualTo(winners.get(0));
      assertThat(current.parent()).isEqualTo(expected);
    }
    assertThat(current.revision().counter()).isEqualTo(ROUNDS + 1);
  }

  @Test
  void aDeleteRacingAPutNeverLeavesALiveRecordAtATombstonesRevision() throws Exception {
    FsStore store = new FsStore(root, 32, Clock.systemUTC());
    CyclicBarrier barrier = new CyclicBarrier(THREADS);
    for (int round = 0; round < ROUNDS; round++) {
      Record base = ((Committed) store.put(draft(key, "base " + round), Optional.empty())).record();
      Revision expected = base.revision();
      List<Future<Object>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        boolean deleter = t % 2 == 0;
        String text = "edit " + round + "/" + t;
        Callable<Object> task = () -> {
          barrier.await();
          return deleter ? store.delete(key, Optional.of(expected))
              : store.put(draft(key, text), Optional.of(expected));
        };
        results.add(pool.submit(task));
      }
      int puts = 0;
      int tombstones = 0;
      for (Future<Object> f : results) {
        Object r = f.get(30, TimeUnit.SECONDS);
        if (r instanceof Committed) {
          puts++;
        } else if (r instanceof Deleted d && d.tombstone().isPresent()) {
          tombstones++;
        }
      }
      assertThat(puts + tombstones).as("round %d", round).isEqualTo(1);
      Record after = store.getRaw(key).orElseThrow();
      assertThat(after.parent()).isEqualTo(expected);
      assertThat(after.isTombstone()).isEqualTo(tombstones == 1);
      if (!after.isTombstone()) {
        // The edit won: delete the key so the next round recreates it.
        store.delete(key, Optional.of(after.revision()));
      }
    }
  }

  @Test
  void twoProcessesNeverCommitTwoEditsOverTheSameBaseRevision() throws Exception {
    FsStore store = new FsStore(root, 32, Clock.systemUTC());
    store.put(draft(key, "start"), Optional.empty());
    Path go = root.resolve("go");
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      processes.add(new ProcessBuilder(javaBin(), "-cp", System.getProperty("java.class.path"),
          FsPutLoop.class.getName(), root.toString(), key.toString(), "150", go.toString(), "p" + i)
          .redirectErrorStream(true).start());
    }
    for (int i = 0; i < 2; i++) {
      Path ready = Path.of(go + ".p" + i + ".ready");
      await("writer p" + i + " to be ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> Files.exists(ready));
    }
    Files.writeString(go, "go");
    List<String> commits = new ArrayList<>();
    List<Integer> perProcess = new ArrayList<>();
    for (Process p : processes) {
      int before = commits.size();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          assertThat(line).startsWith("commit ");
          commits.add(line.substring("commit ".length()));
        }
      }
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
      perProcess.add(commits.size() - before);
    }
    Set<String> bases = new HashSet<>(commits);
    assertThat(bases).as("each base revision committed over at most once").hasSameSizeAs(commits);
    Record last = store.get(key).orElseThrow();
    assertThat(last.revision().counter()).isEqualTo(1 + commits.size());
    assertThat(perProcess).as("both processes committed").allSatisfy(n -> assertThat(n).isPositive());
    assertThat(commits.size()).as("the processes really raced: some puts conflicted").isLessThan(300);
  }

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
