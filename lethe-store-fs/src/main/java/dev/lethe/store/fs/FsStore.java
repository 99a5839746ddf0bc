package dev.lethe.store.fs;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordFormatException;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.substrate.LockingStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The filesystem substrate (docs/design/0203-store-model.md "Substrates": fs). One JSON file per record at
 * {@code <root>/<ns>/<col>/<id>.json} (docs/store-format.md), blobs under {@code <root>/_blobs/},
 * and one lock file, {@code <root>/~lock}.
 *
 * <p>Every write plans inside the key's lock: an in-process lock and an OS byte-range lock on the
 * store's lock file at the key's slot, between processes ({@link FsKeyLocks},
 * docs/design/0109-fs-store-lock-file-and-parallel-batches.md). The new version is written to a
 * temp file, fsynced and renamed atomically over the record file, so readers never lock and never
 * see a torn record. Temp files, the lock file and the per-record {@code <id>.json.lock} files of
 * stores written by earlier versions are ignored by reads and listings.
 *
 * <p>A store holds its lock file open from its first write until {@link #close} (or until it is
 * collected); reads never open it. The namespace {@code _blobs} is reserved.
 */
public final class FsStore extends LockingStore implements AutoCloseable {

  /** Suffix of record files. */
  public static final String RECORD_SUFFIX = ".json";

  /**
   * The longest id an fs store holds: a file name is at most 255 bytes on common filesystems
   * (ext4, xfs, apfs, ntfs), and the longest name the store derives from an id is the temp file
   * {@code <id>.json.<16 hex>.tmp}, 26 characters more than the id. {@link RecordKey} allows 255;
   * a longer id is rejected by {@link #pathOf} before any I/O.
   */
  public static final int MAX_ID_LENGTH = 255 - RECORD_SUFFIX.length() - ".".length() - 16
      - FsFiles.TEMP_SUFFIX.length();

  /** Keys of one {@link #putRawBatch} written at once. */
  public static final int BATCH_WRITERS = 8;

  private final Path root;
  private final RecordJson json = new RecordJson();
  private final Object lockInit = new Object();
  private volatile FsKeyLocks keyLocks; // opened at the first write
  private java.lang.ref.Cleaner.Cleanable keyLocksUse; // guarded by lockInit
  private final FsBlobStore blobs;
  private final WriteObserver observer;
  private final boolean fsync;
  private final FsLedger ledger;

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
    this.blobs = new FsBlobStore(this.root, clock, this::keyLocks);
    this.observer = observer;
    this.ledger = new FsLedger(this.root.resolve(FsLedger.DIR), clock, fsync);
  }

  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return ledger;
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
    pathOf(key); // refuses a reserved namespace or an overlong id before any I/O
    return keyLocks().locked(key, action::run);
  }

  private FsKeyLocks keyLocks() throws IOException {
    FsKeyLocks locks = keyLocks;
    if (locks != null) {
      return locks;
    }
    synchronized (lockInit) {
      if (keyLocks == null) {
        FsKeyLocks opened = FsKeyLocks.open(root);
        keyLocksUse = opened.register(this);
        keyLocks = opened;
      }
      return keyLocks;
    }
  }

  /**
   * Lets go of the store's lock file (closed when no other open store in this JVM uses it).
   * Call it once the store's writes have ended. Idempotent; a write after close opens it again.
   */
  @Override
  public void close() {
    synchronized (lockInit) {
      if (keyLocksUse != null) {
        keyLocksUse.clean();
        keyLocksUse = null;
        keyLocks = null;
      }
    }
  }

  /**
   * Writes a batch as {@link dev.lethe.store.core.Store#putRawBatch} says, with up to {@value
   * #BATCH_WRITERS} keys written at once (docs/design/0109-fs-store-lock-file-and-parallel-batches.md):
   * each key's items run in order on one writer, each the same locked, planned {@code putRaw} as
   * alone, so every result is the one a sequential run gives; overlapping the keys' writes lets the
   * filesystem share their journal commits and fsyncs. Every item is checked first (its key, then
   * {@link dev.lethe.store.core.substrate.PlannedStore#putRawBatch}'s checks and blob refresh): an
   * invalid one throws before anything is written. On a failure while writing, the other keys'
   * writes finish (any item may or may not be written) and the first failure is thrown.
   *
   * @throws IllegalArgumentException as {@code putRaw} for an invalid item, nothing written
   * @throws UncheckedIOException on a write failure
   */
  @Override
  public List<PutResult> putRawBatch(List<RawPut> items) {
    for (RawPut item : items) {
      pathOf(item.record().key());
    }
    return super.putRawBatch(items);
  }

  /** The parallel writes of {@link #putRawBatch}, after its checks. */
  @Override
  protected List<PutResult> writeRawBatch(List<RawPut> items) {
    Map<RecordKey, List<Integer>> byKey = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      byKey.computeIfAbsent(items.get(i).record().key(), k -> new ArrayList<>()).add(i);
    }
    PutResult[] out = new PutResult[items.size()];
    List<List<Integer>> keys = new ArrayList<>(byKey.values());
    int writers = Math.min(BATCH_WRITERS, keys.size());
    if (writers <= 1) {
      writeKeys(items, keys, 0, 1, out);
      return List.of(out);
    }
    List<Future<?>> running = new ArrayList<>(writers);
    for (int w = 0; w < writers; w++) {
      int first = w;
      running.add(BatchPool.EXECUTOR.submit(() -> writeKeys(items, keys, first, writers, out)));
    }
    RuntimeException failure = null;
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        if (failure == null) {
          failure = e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new UncheckedIOException("Interrupted while writing a batch",
            new java.io.InterruptedIOException(e.getMessage()));
      }
    }
    if (failure != null) {
      throw failure;
    }
    return List.of(out);
  }

  /** Writes the keys {@code first}, {@code first + step}, … of {@code keys}, each key's items in order. */
  private void writeKeys(List<RawPut> items, List<List<Integer>> keys, int first, int step, PutResult[] out) {
    for (int k = first; k < keys.size(); k += step) {
      for (int i : keys.get(k)) {
        out[i] = applyRaw(items.get(i).record(), items.get(i).expected());
      }
    }
  }

  /** The writers of {@link #putRawBatch}: daemon threads, shared by the JVM's fs stores, idle ones ended. */
  private static final class BatchPool {
    static final ThreadPoolExecutor EXECUTOR = pool();

    private static ThreadPoolExecutor pool() {
      AtomicInteger n = new AtomicInteger();
      ThreadPoolExecutor e = new ThreadPoolExecutor(BATCH_WRITERS * 4, BATCH_WRITERS * 4, 30, TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "lethe-fs-batch-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
      e.allowCoreThreadTimeOut(true);
      return e;
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
    byte[] content = json.encode(record);
    try {
      FsFiles.write(temp, content, fsync);
    } catch (NoSuchFileException e) {
      // the key's first record in its collection: make the directories, then write
      Files.createDirectories(file.getParent());
      FsFiles.write(temp, content, fsync);
    }
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
