package dev.lethe.store.fs;

import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.blob.BlobStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Blobs of the fs store under {@code <root>/_blobs/<first two hex>/<hash>}, written once with
 * the same temp + fsync + rename protocol as records. A blob's modification time is its stored
 * time; storing existing content, or touching it, refreshes it, so gc's grace covers the caller's
 * next write. Writes, refreshes and removals of one blob hold its lock in the store's lock file
 * (docs/design/0120-a-reused-blob-is-refreshed.md), so they exclude each other across processes.
 */
public final class FsBlobStore implements BlobStore {

  /** Name of the blob directory under the store root. */
  public static final String DIR = "_blobs";

  /** Opens (at the first use) the store's lock file. */
  @FunctionalInterface
  interface Locks {
    FsKeyLocks get() throws IOException;
  }

  private final Path dir;
  private final Clock clock;
  private final Locks locks;

  /**
   * @param root the store root
   * @param clock source of stored times
   * @param locks the store's key locks, which also hold one lock per blob
   */
  FsBlobStore(Path root, Clock clock, Locks locks) {
    this.dir = root.resolve(DIR);
    this.clock = clock;
    this.locks = locks;
  }

  private Path path(String hash) {
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException("Invalid blob hash '" + hash + "'");
    }
    return dir.resolve(hash.substring(0, 2)).resolve(hash);
  }

  @Override
  public BlobRef put(byte[] content) {
    String hash = ContentHash.of(content);
    Path target = path(hash);
    try {
      // Under the blob's lock, as touch and remove: a gc's check of the time and its unlink never
      // straddle this write or refresh.
      return locks.get().lockedBlob(hash, () -> {
        if (!Files.exists(target)) {
          Files.createDirectories(target.getParent());
          Path temp = FsFiles.tempFor(target);
          FsFiles.writeDurably(temp, content);
          FsFiles.commit(temp, target);
          // the stored time is the store's clock, not the moment the file system saw the write
          Files.setLastModifiedTime(target, FileTime.fromMillis(clock.millis()));
        } else {
          refresh(target);
        }
        return new BlobRef(hash, content.length);
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot store blob " + hash, e);
    }
  }

  @Override
  public boolean touch(String hash) {
    Path target = path(hash);
    try {
      return locks.get().lockedBlob(hash, () -> {
        try {
          refresh(target);
          return true;
        } catch (NoSuchFileException absent) {
          return false;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot refresh blob " + hash, e);
    }
  }

  /** Moves {@code target}'s modification time to now, never back. Called under the blob's lock. */
  private void refresh(Path target) throws IOException {
    long now = clock.millis();
    if (Files.getLastModifiedTime(target).toMillis() < now) {
      Files.setLastModifiedTime(target, FileTime.fromMillis(now));
    }
  }

  @Override
  public Optional<byte[]> get(String hash) {
    try {
      return Optional.of(Files.readAllBytes(path(hash)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read blob " + hash, e);
    }
  }

  @Override
  public boolean contains(String hash) {
    return Files.exists(path(hash));
  }

  @Override
  public List<BlobInfo> list() {
    List<BlobInfo> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> shards = Files.newDirectoryStream(dir)) {
      for (Path shard : shards) {
        if (!Files.isDirectory(shard)) {
          continue;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(shard)) {
          for (Path f : files) {
            String name = f.getFileName().toString();
            if (ContentHash.isValid(name)) {
              try {
                out.add(new BlobInfo(name, Files.size(f), Files.getLastModifiedTime(f).toMillis()));
              } catch (NoSuchFileException gone) {
                // removed concurrently
              }
            }
          }
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list blobs under " + dir, e);
    }
  }

  @Override
  public boolean remove(String hash, long storedAtOrBeforeMs) {
    Path target = path(hash);
    try {
      // put() and touch() refresh the modification time before their caller writes the record, so
      // a blob reused since gc listed it is seen as young here; the blob's lock keeps them from
      // landing between this check and the unlink.
      return locks.get().lockedBlob(hash, () -> {
        try {
          if (Files.getLastModifiedTime(target).toMillis() > storedAtOrBeforeMs) {
            return false;
          }
        } catch (NoSuchFileException e) {
          return false;
        }
        return Files.deleteIfExists(target);
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot remove blob " + hash, e);
    }
  }
}
