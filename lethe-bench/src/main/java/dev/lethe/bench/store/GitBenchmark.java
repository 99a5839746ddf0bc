package dev.lethe.bench.store;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.fs.Durability;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.git.GitStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The git store (docs/store.md "The git: store"): {@code put} of new records, one commit each
 * (with fsync, as a git store always writes), and one-shot sync of {@code records} records (10 %
 * tombstones) from a filled fs store into an empty git store, one commit per sync chunk
 * (docs/benchmarks.md).
 */
public class GitBenchmark {

  /** A fresh git store per iteration; each put writes a new key. */
  @State(Scope.Benchmark)
  public static class Puts {
    Path dir;
    GitStore store;
    long next;

    @Setup(Level.Iteration)
    public void open() throws IOException {
      dir = Dirs.fresh("git-put");
      store = GitStore.open(dir, 32, Clock.systemUTC());
      next = 0;
    }

    @TearDown(Level.Iteration)
    public void clean() throws IOException {
      store.close();
      Dirs.remove(dir);
    }
  }

  /** One consumer put of a new record: the fs write, then one commit. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public PutResult gitPut(Puts s) {
    RecordKey key = new RecordKey("bench", "c" + (s.next % 100), "k" + s.next++);
    return s.store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("body " + key), Meta.byAuthor("bench")),
        Optional.empty());
  }

  /** A filled fs store and an empty git store per iteration. */
  @State(Scope.Benchmark)
  public static class Syncs {
    @Param({"10000"})
    public int records;

    Path dirA;
    Path dirB;
    FsStore a;
    GitStore b;

    @Setup(Level.Iteration)
    public void fill() throws IOException {
      dirA = Dirs.fresh("git-sync-a");
      dirB = Dirs.fresh("git-sync-b");
      Fill.records(dirA, records, 10);
      a = Fill.open(dirA, Durability.NO_FSYNC);
      b = GitStore.open(dirB, 32, Clock.systemUTC());
    }

    @TearDown(Level.Iteration)
    public void clean() throws IOException {
      b.close();
      Dirs.remove(dirA);
      Dirs.remove(dirB);
    }
  }

  /** Two-way sync into the empty git store; every record is copied. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public SyncReport syncIntoGit(Syncs s) {
    SyncReport r = Sync.run(s.a, s.b, KeyPrefix.all(), SyncOptions.DEFAULTS);
    if (r.copied() != s.records || !r.converged()) {
      throw new IllegalStateException("unexpected sync report " + r);
    }
    return r;
  }
}
