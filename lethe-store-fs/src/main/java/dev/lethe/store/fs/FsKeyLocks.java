package dev.lethe.store.fs;

import dev.lethe.store.core.RecordKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Cleaner;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * The key locks of an fs store (docs/design/0109-fs-store-lock-file-and-parallel-batches.md): one
 * lock file per store, {@code <root>/~lock}, on which a key's lock is an exclusive byte-range lock
 * of one byte at the key's slot, the CRC-32C of {@code ns/col/id}. Every process that writes the
 * store locks the same byte for the same key, so two processes never write one key at once; two
 * keys that share a slot merely wait for each other.
 *
 * <p>Byte-range locks belong to a process and a file, and closing any channel on the file releases
 * all of the process's locks on it, so the lock file is opened once per store directory and JVM
 * and kept open while any {@link FsStore} on that directory is open: the stores of one directory
 * in one JVM share it, and it is closed when the last of them is closed or collected. Inside the
 * JVM a key first takes one of 256 in-process locks chosen by its slot, so two threads never ask
 * the JVM for overlapping ranges of the file.
 *
 * <p>{@code ~} is not a key character, so the lock file never looks like a namespace.
 */
final class FsKeyLocks {

  /** The lock file's name in the store directory. */
  static final String FILE_NAME = "~lock";

  private static final int STRIPES = 256;
  private static final ConcurrentHashMap<Path, FsKeyLocks> OPEN = new ConcurrentHashMap<>();
  private static final Cleaner CLEANER = Cleaner.create();

  private final Path dir;
  private final FileChannel channel;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private int users; // guarded by OPEN's compute on dir

  private FsKeyLocks(Path dir, FileChannel channel) {
    this.dir = dir;
    this.channel = channel;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /**
   * The key locks of the store at {@code root}, creating the directory and its lock file if
   * needed. The caller owns one use, given back with {@link #register} (when {@code owner} is
   * closed or collected).
   *
   * @throws IOException if the directory or the lock file cannot be created or opened
   */
  static FsKeyLocks open(Path root) throws IOException {
    Files.createDirectories(root);
    Path dir = root.toRealPath();
    try {
      return OPEN.compute(dir, (k, held) -> {
        FsKeyLocks locks = held;
        if (locks == null) {
          try {
            locks = new FsKeyLocks(k, FileChannel.open(k.resolve(FILE_NAME),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
        locks.users++;
        return locks;
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /**
   * Gives this use back when {@code owner} becomes unreachable, or when the returned handle is
   * cleaned (at most once). The action holds no reference to {@code owner}.
   */
  Cleaner.Cleanable register(Object owner) {
    Path key = dir;
    return CLEANER.register(owner, () -> release(key));
  }

  private static void release(Path dir) {
    OPEN.computeIfPresent(dir, (k, locks) -> {
      if (--locks.users > 0) {
        return locks;
      }
      try {
        locks.channel.close();
      } catch (IOException ignored) {
        // nothing is held: every lock was released before its store could be let go
      }
      return null;
    });
  }

  /** The lock slot of {@code key}: the unsigned CRC-32C of {@code ns/col/id} in UTF-8. */
  static long slot(RecordKey key) {
    CRC32C crc = new CRC32C();
    crc.update(key.toString().getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }

  /** An action run while holding a key's lock. */
  @FunctionalInterface
  interface Action<T> {
    T run() throws IOException;
  }

  /**
   * The lock slot of blob {@code hash} (64 hex digits): 2³² plus its first 32 bits, so a blob never
   * shares a slot with a record (docs/design/0120-a-reused-blob-is-refreshed.md).
   */
  static long blobSlot(String hash) {
    return (1L << 32) + Long.parseLong(hash.substring(0, 8), 16);
  }

  /** Runs {@code action} holding {@code key}'s lock, in this JVM and against other processes. */
  <T> T locked(RecordKey key, Action<T> action) throws IOException {
    return lockedSlot(slot(key), action);
  }

  /** Runs {@code action} holding blob {@code hash}'s lock, in this JVM and against other processes. */
  <T> T lockedBlob(String hash, Action<T> action) throws IOException {
    return lockedSlot(blobSlot(hash), action);
  }

  private <T> T lockedSlot(long slot, Action<T> action) throws IOException {
    ReentrantLock stripe = stripes[(int) (slot % STRIPES)];
    stripe.lock();
    try (FileLock ignored = acquire(slot)) {
      return action.run();
    } finally {
      stripe.unlock();
    }
  }

  private FileLock acquire(long slot) throws IOException {
    while (true) {
      try {
        return channel.lock(slot, 1, false);
      } catch (OverlappingFileLockException e) {
        // The same directory reached through another path in this JVM holds the slot; wait.
        try {
          Thread.sleep(1);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IOException("Interrupted while waiting for a record lock", ie);
        }
      }
    }
  }
}
