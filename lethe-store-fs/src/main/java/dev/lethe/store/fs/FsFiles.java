package dev.lethe.store.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The durable-write protocol of the fs substrate: write a temp file in the target's directory,
 * fsync it, rename it atomically over the target, fsync the directory. A crash at any point
 * leaves either the old file or the new one, never a torn file.
 */
final class FsFiles {

  /** Suffix of temp files; ignored by reads and listings. */
  static final String TEMP_SUFFIX = ".tmp";

  private FsFiles() {}

  /** Returns a fresh temp path next to {@code target}. */
  static Path tempFor(Path target) {
    return target.resolveSibling(target.getFileName() + "."
        + Long.toHexString(ThreadLocalRandom.current().nextLong()) + TEMP_SUFFIX);
  }

  /** Writes {@code content} to {@code temp} and forces it to disk. */
  static void writeDurably(Path temp, byte[] content) throws IOException {
    write(temp, content, true);
  }

  /** Writes {@code content} to {@code temp}, forcing it to disk when {@code fsync}. */
  static void write(Path temp, byte[] content, boolean fsync) throws IOException {
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.wrap(content);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      if (fsync) {
        ch.force(true);
      }
    }
  }

  /** Renames {@code temp} over {@code target} atomically and fsyncs the directory. */
  static void commit(Path temp, Path target) throws IOException {
    commit(temp, target, true);
  }

  /** Renames {@code temp} over {@code target} atomically, fsyncing the directory when asked. */
  static void commit(Path temp, Path target, boolean fsync) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.deleteIfExists(temp);
      throw new IOException("Cannot write " + target + ": the filesystem has no atomic rename", e);
    }
    if (fsync) {
      syncDirectory(target.getParent());
    }
  }

  /** Forces a directory's entries to disk, so a rename or a removal survives a crash. */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some platforms cannot open a directory for fsync; the rename itself is still atomic.
      if (!System.getProperty("os.name", "").toLowerCase().contains("win")) {
        throw e;
      }
    }
  }
}
