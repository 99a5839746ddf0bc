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
 * time; storing existing content refreshes it, so gc's grace covers the caller's next write.
 */
public final class FsBlobStore implements BlobStore {

  /** Name of the blob directory under the store root. */
  public static final String DIR = "_blobs";

  private final Path dir;
  private final Clock clock;

  /**
   * @param root the store root
   * @param clock source of stored times
   */
  public FsBlobStore(Path root, Clock clock) {
    this.dir = root.resolve(DIR);
    this.clock = clock;
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
      // Two passes: a gc may remove an old copy between our existence check and the refresh.
      for (int attempt = 0; attempt < 2; attempt++) {
        if (!Files.exists(target)) {
          Files.createDirectories(target.getParent());
          Path temp = FsFiles.tempFor(target);
          FsFiles.writeDurably(temp, content);
          FsFiles.commit(temp, target);
        }
        try {
          Files.setLastModifiedTime(target, FileTime.fromMillis(clock.millis()));
          return new BlobRef(hash, content.length);
        } catch (NoSuchFileException removedMeanwhile) {
          // write it again
        }
      }
      throw new IOException("blob kept disappearing while it was stored");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot store blob " + hash, e);
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
      // put() refreshes the modification time before its caller writes the record, so a blob
      // reused since gc listed it is seen as young here. (A put landing between this check and
      // the unlink is not excluded; the grace assumes writers finish well within it.)
      if (Files.getLastModifiedTime(target).toMillis() > storedAtOrBeforeMs) {
        return false;
      }
      return Files.deleteIfExists(target);
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot remove blob " + hash, e);
    }
  }
}
