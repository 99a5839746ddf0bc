package dev.lethe.bench.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectReport;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.fs.Durability;
import dev.lethe.store.fs.FsStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
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
 * Collect of {@code records} tombstones, all past a 7-day horizon, one shot. Tombstones/s =
 * records / (s/op) (docs/benchmarks.md).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class CollectBenchmark {

  @Param({"100000"})
  public int records;

  @Param({"NO_FSYNC"})
  public String durability;

  private Path dir;
  private FsStore store;

  @Setup(Level.Iteration)
  public void fill() throws IOException {
    dir = Dirs.fresh("collect");
    Fill.records(dir, records, 1);
    store = Fill.open(dir, Durability.valueOf(durability));
  }

  @TearDown(Level.Iteration)
  public void clean() throws IOException {
    Dirs.remove(dir);
  }

  /** Purge every tombstone. */
  @Benchmark
  public CollectReport collectTombstones() {
    CollectReport r = Collect.run(store, KeyPrefix.all(), Duration.ofDays(7), Clock.systemUTC(), Progress.NONE);
    if (r.purged() != records) {
      throw new IllegalStateException("unexpected collect report " + r);
    }
    return r;
  }
}
