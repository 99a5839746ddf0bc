package dev.lethe.bench.store;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.fs.FsStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * fs store put / get / delete throughput beside the floor the disk allows: a raw loop of the
 * same durable-write protocol (temp write, fsync, rename, directory fsync) without the store.
 * Run with {@code -t 1} and {@code -t 2} (docs/benchmarks.md).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FsOpsBenchmark {

  private static final byte[] BODY = "x".repeat(200).getBytes(java.nio.charset.StandardCharsets.UTF_8);

  /** One fs store shared by all threads, with 1000 records for reads. */
  @State(Scope.Benchmark)
  public static class Shared {
    Path dir;
    FsStore store;
    final AtomicInteger threadIds = new AtomicInteger();

    @Setup(Level.Trial)
    public void open() throws IOException {
      dir = Dirs.fresh("fsops");
      store = new FsStore(dir, 32, Clock.systemUTC());
      FsStore fast = new FsStore(dir, 32, Clock.systemUTC(), dev.lethe.store.fs.Durability.NO_FSYNC,
          dev.lethe.store.fs.WriteObserver.NONE);
      for (int i = 0; i < 1000; i++) {
        fast.put(draft(new RecordKey("bench", "read", "r" + i)), Optional.empty());
      }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      Dirs.remove(dir);
    }
  }

  /** Per-thread key sequence, so threads never contend on one key. */
  @State(Scope.Thread)
  public static class PerThread {
    int thread;
    long seq;
    RecordKey victim;

    @Setup(Level.Trial)
    public void id(Shared shared) {
      thread = shared.threadIds.getAndIncrement();
    }

    RecordKey nextKey(String collection) {
      return new RecordKey("bench", collection, "t" + thread + "-" + (seq++));
    }

    /** Creates the live record the next {@code delete} invocation removes (not timed). */
    @Setup(Level.Invocation)
    public void prepareVictim(Shared shared) {
      victim = nextKey("delete");
      shared.store.put(draft(victim), Optional.empty());
    }
  }

  static Record draft(RecordKey key) {
    return Record.draft(key, Kind.DOCUMENT, new Body.Inline(BODY), Meta.byAuthor("bench"));
  }

  /** Consumer put of a new key (one durable write). */
  @Benchmark
  public PutResult put(Shared s, PerThread t) {
    PutResult r = s.store.put(draft(t.nextKey("put")), Optional.empty());
    if (!(r instanceof Committed)) {
      throw new IllegalStateException("put did not commit: " + r);
    }
    return r;
  }

  /** Consumer get of an existing record (read + JSON decode). */
  @Benchmark
  public Optional<Record> get(Shared s, PerThread t) {
    return s.store.get(new RecordKey("bench", "read", "r" + (t.seq++ % 1000)));
  }

  /** Consumer delete of a live record (one durable tombstone write). */
  @Benchmark
  public DeleteResult delete(Shared s, PerThread t) {
    return s.store.delete(t.victim, Optional.empty());
  }

  /** The disk's floor: temp write + fsync + atomic rename + directory fsync, no store. */
  @Benchmark
  public Path rawWriteFsyncRename(Shared s, PerThread t) throws IOException {
    Path dir = s.dir.resolve("raw");
    Files.createDirectories(dir);
    Path target = dir.resolve("t" + t.thread + "-" + (t.seq++ % 1000) + ".json");
    Path temp = dir.resolve(target.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(BODY));
      ch.force(true);
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
    return target;
  }
}
