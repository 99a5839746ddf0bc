package dev.lethe.store.git;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write lock of one git store: an in-process lock shared by every {@link GitStore} of the JVM
 * on the same directory, then an OS lock on {@code .git/lethe.lock} between processes
 * (docs/design/0125-git-store.md). Every write moves HEAD, so writes of a git store are serial.
 */
final class RepoLock {

  /** Name of the lock file inside the git directory. */
  static final String FILE = "lethe.lock";

  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

  private final ReentrantLock local;

  RepoLock(Path root) {
    this.local = IN_PROCESS.computeIfAbsent(root, r -> new ReentrantLock());
  }

  /** An action run under the lock. */
  @FunctionalInterface
  interface Action<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code action} holding the in-process lock only: for creating the repository, before the
   * git directory (and so the lock file) exists.
   */
  <T> T inProcess(Action<T> action) throws IOException {
    local.lock();
    try {
      return action.run();
    } finally {
      local.unlock();
    }
  }

  /** Runs {@code action} holding both locks; {@code gitDir} must exist. */
  <T> T locked(Path gitDir, Action<T> action) throws IOException {
    local.lock();
    try (FileChannel ch = FileChannel.open(gitDir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = ch.lock()) {
      return action.run();
    } finally {
      local.unlock();
    }
  }
}
