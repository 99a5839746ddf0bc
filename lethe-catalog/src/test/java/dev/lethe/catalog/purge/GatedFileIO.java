package dev.lethe.catalog.purge;

import dev.lethe.catalog.io.LocalFileIO;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A local FileIO loadable by {@code io-impl} whose deletes go through a named {@link Gate}
 * (property {@code test.gate}): the gate counts deletes per path, can hold every delete until
 * opened, and can make deletes fail. Writes and reads go to a real {@link LocalFileIO}.
 */
public final class GatedFileIO implements SupportsBulkOperations, SupportsPrefixOperations {
  /** Gates by name; test-only registry (a FileIO loaded by class name cannot be handed objects). */
  static final Map<String, Gate> GATES = new ConcurrentHashMap<>();

  /** Controls and observes the deletes of every GatedFileIO naming it. */
  public static final class Gate {
    final Map<String, AtomicInteger> deletes = new ConcurrentHashMap<>();
    final AtomicInteger blockedCalls = new AtomicInteger();
    final java.util.List<Integer> callSizes = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile CountDownLatch open = new CountDownLatch(0);
    volatile boolean failing;
    /** Deletes fail until this {@link System#nanoTime()} (a fault that lasts a while); 0 = never. */
    volatile long failUntilNanos;
    /** Counted down when a {@code *.metadata.json} output file is opened (a commit about to swap). */
    volatile CountDownLatch metadataOpened = new CountDownLatch(1);

    /** Holds every delete call until {@link #open()}. */
    void close() {
      open = new CountDownLatch(1);
    }

    void open() {
      open.countDown();
    }

    int totalDeletes() {
      return deletes.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** A delete call naming a path this accepts waits for {@link #holdOpen} (null: none held). */
    volatile java.util.function.Predicate<String> holdIf;
    final CountDownLatch holdOpen = new CountDownLatch(1);

    private void pass(Iterable<String> paths) {
      java.util.function.Predicate<String> hold = holdIf;
      if (hold != null) {
        for (String p : paths) {
          if (hold.test(p)) {
            try {
              if (!holdOpen.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("hold never released");
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
            break;
          }
        }
      }
      if (open.getCount() > 0) {
        blockedCalls.incrementAndGet();
      }
      try {
        if (!open.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (failing || (failUntilNanos != 0 && System.nanoTime() - failUntilNanos < 0)) {
        throw new org.apache.iceberg.exceptions.RuntimeIOException("injected delete failure");
      }
      int n = 0;
      for (String p : paths) {
        deletes.computeIfAbsent(p, k -> new AtomicInteger()).incrementAndGet();
        n++;
      }
      callSizes.add(n);
    }
  }

  static Gate newGate(String name) {
    Gate g = new Gate();
    GATES.put(name, g);
    return g;
  }

  private final LocalFileIO delegate = new LocalFileIO();
  private Gate gate;

  public GatedFileIO() {}

  @Override
  public void initialize(Map<String, String> props) {
    delegate.initialize(props);
    gate = GATES.get(props.get("test.gate"));
    if (gate == null) {
      throw new IllegalArgumentException("no gate " + props.get("test.gate"));
    }
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return delegate.newInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    if (path.endsWith(".metadata.json")) {
      gate.metadataOpened.countDown();
    }
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    gate.pass(java.util.List.of(path));
    delegate.deleteFile(path);
  }

  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    gate.pass(paths);
    delegate.deleteFiles(paths);
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    return delegate.listPrefix(prefix);
  }

  @Override
  public void deletePrefix(String prefix) {
    throw new UnsupportedOperationException("a purge never deletes by prefix");
  }
}
