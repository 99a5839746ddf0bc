package dev.lethe.it;

import dev.lethe.catalog.io.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A local FileIO for server processes under test ({@code io-impl}, on the server's class path): every
 * deleted path is appended as one line, tagged with the process id, to the file named by property
 * {@code counting.log}, and each delete call first sleeps {@code counting.delay-ms} (default 0) so a
 * purge can be caught mid-way.
 */
public final class CountingFileIO implements SupportsBulkOperations, SupportsPrefixOperations {
  private final LocalFileIO delegate = new LocalFileIO();
  private Path log;
  private long delayMs;

  public CountingFileIO() {}

  @Override
  public void initialize(Map<String, String> props) {
    delegate.initialize(props);
    log = props.containsKey("counting.log") ? Path.of(props.get("counting.log")) : null;
    delayMs = Long.parseLong(props.getOrDefault("counting.delay-ms", "0"));
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
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    deleteFiles(java.util.List.of(path));
  }

  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    if (delayMs > 0) {
      try {
        Thread.sleep(delayMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    delegate.deleteFiles(paths);
    if (log != null) {
      StringBuilder lines = new StringBuilder();
      long pid = ProcessHandle.current().pid();
      for (String p : paths) {
        lines.append(pid).append(' ').append(p).append('\n');
      }
      try {
        // one O_APPEND write per batch: lines of concurrent processes never interleave
        Files.write(log, lines.toString().getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
            StandardOpenOption.APPEND, StandardOpenOption.WRITE);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
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
