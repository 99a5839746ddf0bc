package dev.lethe.catalog.purge;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;

/**
 * Wraps a FileIO and records every path asked to be deleted, in call order. With {@code
 * applyDeletes=false} nothing is deleted, so Iceberg's {@code dropTableData} can be observed on a
 * table that is then purged for real.
 */
public final class RecordingFileIO implements FileIO, SupportsBulkOperations {
  private final FileIO delegate;
  private final boolean applyDeletes;
  private final List<String> deleted = Collections.synchronizedList(new ArrayList<>());
  private final List<Integer> bulkCallSizes = Collections.synchronizedList(new ArrayList<>());
  private final List<String> opened = Collections.synchronizedList(new ArrayList<>());
  private final Set<String> deletingThreads = ConcurrentHashMap.newKeySet();

  public RecordingFileIO(FileIO delegate, boolean applyDeletes) {
    this.delegate = delegate;
    this.applyDeletes = applyDeletes;
  }

  /** A recorder that is not {@link SupportsBulkOperations} at all (one-by-one delete path). */
  public static FileIO withoutBulk(RecordingFileIO recorder) {
    return new FileIO() {
      @Override
      public InputFile newInputFile(String path) {
        return recorder.newInputFile(path);
      }

      @Override
      public InputFile newInputFile(String path, long length) {
        return recorder.newInputFile(path, length);
      }

      @Override
      public OutputFile newOutputFile(String path) {
        return recorder.newOutputFile(path);
      }

      @Override
      public void deleteFile(String path) {
        recorder.deleteFile(path);
      }
    };
  }

  public List<String> deleted() {
    synchronized (deleted) {
      return List.copyOf(deleted);
    }
  }

  /** Names of the threads that called a delete method. */
  public Set<String> deletingThreads() {
    return Set.copyOf(deletingThreads);
  }

  public List<Integer> bulkCallSizes() {
    synchronized (bulkCallSizes) {
      return List.copyOf(bulkCallSizes);
    }
  }

  /** Every location passed to {@code newInputFile}, in call order. */
  public List<String> opened() {
    synchronized (opened) {
      return List.copyOf(opened);
    }
  }

  @Override
  public InputFile newInputFile(String path) {
    opened.add(path);
    return delegate.newInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    opened.add(path);
    return delegate.newInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    deletingThreads.add(Thread.currentThread().getName());
    deleted.add(path);
    if (applyDeletes) {
      delegate.deleteFile(path);
    }
  }

  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    List<String> batch = new ArrayList<>();
    paths.forEach(batch::add);
    deletingThreads.add(Thread.currentThread().getName());
    bulkCallSizes.add(batch.size());
    deleted.addAll(batch);
    if (applyDeletes) {
      if (delegate instanceof SupportsBulkOperations b) {
        b.deleteFiles(batch);
      } else {
        batch.forEach(delegate::deleteFile);
      }
    }
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }
}
