package dev.lethe.store.fs;

import dev.lethe.store.core.ledger.DocumentLedger;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * A file store's ledger (docs/design/0151-purge-log.md "Storage"): in a directory of its own
 * ({@code <root>/~ledger/}, a name no key can take), the state document {@code state.json}
 * (replaced by an atomic rename) and the purge log {@code purge-log.jsonl} (one line per entry,
 * appended and fsynced). Every change holds {@code lock}: an in-process lock and an OS lock on
 * that file, between processes. Readers take no lock; a line not yet ended by a newline (an
 * append under way, or cut by a crash) is not read.
 */
public final class FsLedger extends DocumentLedger {

  /** The ledger directory's name under a file store's root. */
  public static final String DIR = "~ledger";

  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

  private final Path dir;
  private final boolean fsync;

  /**
   * @param dir the ledger directory, created at the first change
   * @param clock the store's clock
   * @param fsync whether changes are forced to disk
   */
  public FsLedger(Path dir, Clock clock, boolean fsync) {
    super(clock);
    this.dir = dir.toAbsolutePath().normalize();
    this.fsync = fsync;
  }

  private interface Locked<T> {
    T run() throws IOException;
  }

  private <T> T locked(Locked<T> action) {
    ReentrantLock lock = IN_PROCESS.computeIfAbsent(dir, d -> new ReentrantLock());
    lock.lock();
    try {
      Files.createDirectories(dir);
      try (FileChannel ch = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = ch.lock()) {
        return action.run();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the store ledger in " + dir, e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  protected String updateState(UnaryOperator<Optional<String>> change) {
    return locked(() -> {
      Path target = dir.resolve("state.json");
      String next = change.apply(read(target)).orElseThrow();
      Path temp = FsFiles.tempFor(target);
      FsFiles.write(temp, next.getBytes(StandardCharsets.UTF_8), fsync);
      FsFiles.commit(temp, target, fsync);
      return next;
    });
  }

  @Override
  protected Optional<String> readState() {
    try {
      return read(dir.resolve("state.json"));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the store ledger in " + dir, e);
    }
  }

  private static Optional<String> read(Path p) throws IOException {
    try {
      return Optional.of(Files.readString(p, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  protected void appendLine(String line) {
    locked(() -> {
      try (FileChannel ch = FileChannel.open(dir.resolve("purge-log.jsonl"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
        ByteBuffer buf = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        if (fsync) {
          ch.force(false);
        }
      }
      return null;
    });
  }

  @Override
  protected List<String> readLines() {
    try {
      return complete(read(dir.resolve("purge-log.jsonl")).orElse(""));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the purge log in " + dir, e);
    }
  }

  private static List<String> complete(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      if (nl > start) {
        out.add(text.substring(start, nl));
      }
      start = nl + 1;
    }
    return out;
  }

  @Override
  protected void rewriteLines(UnaryOperator<List<String>> keep) {
    locked(() -> {
      Path target = dir.resolve("purge-log.jsonl");
      List<String> kept = keep.apply(complete(read(target).orElse("")));
      StringBuilder b = new StringBuilder();
      kept.forEach(l -> b.append(l).append('\n'));
      Path temp = FsFiles.tempFor(target);
      FsFiles.write(temp, b.toString().getBytes(StandardCharsets.UTF_8), fsync);
      FsFiles.commit(temp, target, fsync);
      return null;
    });
  }
}
