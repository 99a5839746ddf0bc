package dev.lethe.bench.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.fs.Durability;
import dev.lethe.store.fs.FsStore;
import java.io.IOException;
import java.nio.file.Path;
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
 * Sync of {@code records} records, 10 % of them tombstones, from a filled fs store into an empty
 * one, one shot. The filled side is written untimed without fsync; the timed sync writes with
 * {@code durability}. Records/s = records / (s/op) (docs/benchmarks.md).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class SyncBenchmark {

  @Param({"100000"})
  public int records;

  @Param({"NO_FSYNC"})
  public String durability;

  private Path dirA;
  private Path dirB;
  private FsStore a;
  private FsStore b;

  @Setup(Level.Iteration)
  public void fill() throws IOException {
    dirA = Dirs.fresh("sync-a");
    dirB = Dirs.fresh("sync-b");
    Fill.records(dirA, records, 10);
    a = Fill.open(dirA, Durability.valueOf(durability));
    b = Fill.open(dirB, Durability.valueOf(durability));
  }

  @TearDown(Level.Iteration)
  public void clean() throws IOException {
    Dirs.remove(dirA);
    Dirs.remove(dirB);
  }

  /** Two-way sync; every record is copied to the empty side. */
  @Benchmark
  public SyncReport syncIntoEmptyPeer() {
    SyncReport r = Sync.run(a, b, KeyPrefix.all(), SyncOptions.DEFAULTS);
    if (r.copied() != records || !r.converged()) {
      throw new IllegalStateException("unexpected sync report " + r);
    }
    return r;
  }
}
