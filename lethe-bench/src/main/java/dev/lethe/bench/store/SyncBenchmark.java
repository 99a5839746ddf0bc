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

  /**
   * Entries in the empty side's purge log before the sync (docs/design/0151-purge-log.md), for keys
   * of another collection: every key is missing on that side, so the sync reads the whole log
   * once and looks each key up. 0 is the baseline; goal: 100,000 within 10 % of it.
   */
  @Param({"0", "100000"})
  public int purgeLog;

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
    dev.lethe.store.core.Revision deleted = new dev.lethe.store.core.Revision(3,
        dev.lethe.store.core.ContentHash.ofUtf8("bench"));
    java.util.List<dev.lethe.store.core.Revision> history = java.util.List.of(
        new dev.lethe.store.core.Revision(2, dev.lethe.store.core.ContentHash.ofUtf8("bench2")),
        new dev.lethe.store.core.Revision(1, dev.lethe.store.core.ContentHash.ofUtf8("bench1")));
    for (int i = 0; i < purgeLog; i++) {
      b.ledger().appendPurged(new dev.lethe.store.core.ledger.PurgeEntry(
          new dev.lethe.store.core.RecordKey("bench", "gone", String.format("k%07d", i)),
          dev.lethe.store.core.tombstone.Tombstones.revisionAfter(deleted), deleted, history, 1L, 2L));
    }
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
