package dev.lethe.store.fs;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordFormatException;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.substrate.LockingStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The filesystem substrate (docs/design/0203-store-model.md "Substrates": fs). One JSON file per record at
 * {@code <root>/<ns>/<col>/<id>.json} (docs/store-format.md), a lock file {@code <id>.json.lock}
 * beside it, blobs under {@code <root>/_blobs/}.
 *
 * <p>Every write plans inside the key's lock: an in-process lock (file locks are per JVM) and an
 * OS file lock on the lock file (between processes). The new version is written to a temp file,
 * fsynced and renamed atomically over the record file, so readers never lock and never see a
 * torn record. Lock files and temp files are ignored by reads and listings; lock files are kept,
 * because removing one while another process waits on it would let two processes hold "the" lock.
 *
 * <p>The namespace {@code _blobs} is reserved.
 */
public final class FsStore extends LockingStore {

  /** Suffix of record files. */
  public static final String RECORD_SUFFIX = ".json";
  /** Suffix of lock files. */
  public static final String LOCK_SUFFIX = ".lock";

  /**
   * The longest id an fs store holds: a file name is at most 255 bytes on common filesystems
   * (ext4, xfs, apfs, ntfs), and the longest name the store derives from an id is the temp file
   * {@code <id>.json.<16 hex>.tmp}, 26 characters more than the id. {@link RecordKey} allows 255;
   * a longer id is rejected by {@link #pathOf} before any I/O.
   */
  public static final int MAX_ID_LENGTH = 255 - RECORD_SUFFIX.length() - ".".length() - 16
      - FsFiles.TEMP_SUFFIX.length();

  private static final int STRIPES = 256;

  private final Path root;
  private final RecordJson json = new RecordJson();
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final FsBlobStore blobs;
  private final WriteObserver observer;
  private final boolean fsync;

  /**
   * Opens (and creates if needed) a store rooted at {@code root}.
   *
   * @param root the store directory
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock stamps created, updated, deletedAt and blob times
   * @throws IllegalArgumentException "ancestor cap must be at least 1"
   */
  public FsStore(Path root, int ancestorCap, Clock clock) {
    this(root, ancestorCap, clock, WriteObserver.NONE);
  }

  /**
   * As {@link #FsStore(Path, int, Clock)}, with an observer of the write protocol.
   *
   * @param observer called between the temp write and the rename
   */
  public FsStore(Path root, int ancestorCap, Clock clock, WriteObserver observer) {
    this(root, ancestorCap, clock, Durability.FSYNC, observer);
  }

  /**
   * As {@link #FsStore(Path, int, Clock, WriteObserver)}, choosing whether writes are fsynced.
   *
   * @param durability {@link Durability#FSYNC} unless the store is scratch space
   */
  public FsStore(Path root, int ancestorCap, Clock clock, Durability durability, WriteObserver observer) {
    super(ancestorCap, clock);
    this.fsync = durability == Durability.FSYNC;
    this.root = root.toAbsolutePath().normalize();
    this.blobs = new FsBlobStore(this.root, clock);
    this.observer = observer;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** Returns the store directory. */
  public Path root() {
    return root;
  }

  /**
   * Returns the file holding {@code key}'s record.
   *
   * @throws IllegalArgumentException for the reserved namespace {@code _blobs} or an id longer
   *     than {@link #MAX_ID_LENGTH}
   */
  public Path pathOf(RecordKey key) {
    if (key.namespace().equals(FsBlobStore.DIR)) {
      throw new IllegalArgumentException(
          "Invalid namespace '" + FsBlobStore.DIR + "': reserved for blobs by the fs store");
    }
    if (key.id().length() > MAX_ID_LENGTH) {
      throw new IllegalArgumentException("Invalid id '" + key.id().substring(0, 60) + "...': longer than "
          + MAX_ID_LENGTH + " characters (" + key.id().length()
          + "), the most a file name in an fs store can hold");
    }
    return root.resolve(key.namespace()).resolve(key.collection()).resolve(key.id() + RECORD_SUFFIX);
  }

  @Override
  protected <T> T locked(RecordKey key, LockedAction<T> action) throws IOException {
    Path file = pathOf(key);
    ReentrantLock stripe = stripes[Math.floorMod(key.hashCode(), STRIPES)];
    stripe.lock();
    try {
      Files.createDirectories(file.getParent());
      Path lockFile = file.resolveSibling(file.getFileName() + LOCK_SUFFIX);
      try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = acquire(ch)) {
        return action.run();
      }
    } finally {
      stripe.unlock();
    }
  }

  private static FileLock acquire(FileChannel ch) throws IOException {
    while (true) {
      try {
        return ch.lock();
      } catch (OverlappingFileLockException e) {
        // Another FsStore instance in this JVM holds the same key's lock; wait for it.
        try {
          Thread.sleep(1);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IOException("Interrupted while waiting for a record lock", ie);
        }
      }
    }
  }

  @Override
  protected String locationOf(RecordKey key) {
    return pathOf(key).toString();
  }

  @Override
  protected Optional<Record> read(RecordKey key) throws IOException {
    Path file = pathOf(key);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (Files.isDirectory(file)) {
        throw new IOException(file + ": is a directory, not a record file", e);
      }
      throw e;
    }
    Record r;
    try {
      r = json.decode(bytes);
    } catch (RecordFormatException e) {
      throw new CorruptRecordException(file.toString(), e);
    }
    if (!r.key().equals(key)) {
      throw new CorruptRecordException(file.toString(),
          new RecordFormatException("the file holds key " + r.key() + ", not " + key));
    }
    return Optional.of(r);
  }

  @Override
  protected void write(Record record) throws IOException {
    Path file = pathOf(record.key());
    Path temp = FsFiles.tempFor(file);
    FsFiles.write(temp, json.encode(record), fsync);
    observer.afterTempWrite(record.key(), temp);
    FsFiles.commit(temp, file, fsync);
  }

  @Override
  protected void remove(RecordKey key) throws IOException {
    Path file = pathOf(key);
    if (Files.deleteIfExists(file) && fsync) {
      FsFiles.syncDirectory(file.getParent());
    }
  }

  /**
   * Walks the directories in key order: namespaces and collections sorted by name, and one
   * collection's ids at a time, so a page reads the names of at most the collections it crosses,
   * never the records of a whole namespace.
   */
  @Override
  protected List<RecordKey> keysAfter(KeyPrefix prefix, RecordKey after, int limit) throws IOException {
    if (FsBlobStore.DIR.equals(prefix.namespace())) {
      throw new IllegalArgumentException(
          "Invalid namespace '" + FsBlobStore.DIR + "': reserved for blobs by the fs store");
    }
    List<RecordKey> out = new ArrayList<>();
    for (String ns : prefix.namespace() != null ? List.of(prefix.namespace()) : children(root)) {
      if (ns.equals(FsBlobStore.DIR) || (after != null && ns.compareTo(after.namespace()) < 0)) {
        continue;
      }
      Path nsDir = root.resolve(ns);
      for (String col : prefix.collection() != null ? List.of(prefix.collection()) : children(nsDir)) {
        if (after != null && ns.equals(after.namespace()) && col.compareTo(after.collection()) < 0) {
          continue;
        }
        for (String id : ids(nsDir.resolve(col))) {
          RecordKey key = new RecordKey(ns, col, id);
          if (after == null || key.compareTo(after) > 0) {
            out.add(key);
            if (out.size() == limit) {
              return out;
            }
          }
        }
      }
    }
    return out;
  }

  /** Returns the ids of the record files in a collection directory, sorted; none if it is absent. */
  private static List<String> ids(Path colDir) throws IOException {
    List<String> out = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(colDir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (!name.endsWith(RECORD_SUFFIX) || !Files.isRegularFile(f)) {
          continue; // lock files, temp files, directories, anything else
        }
        String id = name.substring(0, name.length() - RECORD_SUFFIX.length());
        if (RecordKey.isValidPart(id)) {
          out.add(id);
        }
      }
    } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
      // nothing there
    }
    Collections.sort(out);
    return out;
  }

  /** Returns the names of {@code dir}'s subdirectories that are valid key parts, sorted. */
  private static List<String> children(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, Files::isDirectory)) {
      for (Path p : s) {
        String name = p.getFileName().toString();
        if (RecordKey.isValidPart(name)) {
          out.add(name);
        }
      }
    } catch (NoSuchFileException e) {
      return out;
    }
    Collections.sort(out);
    return out;
  }

  @Override
  public BlobStore blobs() {
    return blobs;
  }

  @Override
  public String toString() {
    return "file:" + root;
  }
}
