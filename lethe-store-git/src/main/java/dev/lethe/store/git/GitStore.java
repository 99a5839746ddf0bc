package dev.lethe.store.git;

import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.planner.RawPutPlanner;
import dev.lethe.store.fs.FsStore;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * The git substrate (docs/design/0125-git-store.md): a {@code file:} store whose directory is a git
 * work tree. Records live at the {@code file:} layout's paths ({@code <ns>/<col>/<id>.json}), read
 * and written by an {@link FsStore} on the same directory, so every read, listing and plan is the
 * fs store's, decided by the same core planners under the key's lock. Every write then commits the
 * files it touched, under a store-wide lock ({@link RepoLock}): a consumer write, a delete, a raw
 * write or a purge is one commit, a {@link #putRawBatch batch} one commit for its items. A tombstone
 * is an ordinary modification of the record's file, so {@code git log -- <path>} shows the delete.
 * The commit's author is the record's author, else {@code lethe}; its committer is {@code lethe}.
 *
 * <p>Blobs live under {@code _blobs/} as in a {@code file:} store and are not committed (the store's
 * {@code .gitignore} names them, the lock files and temp files): sync carries them, pull and push
 * do not. A write interrupted between its file and its commit is repaired when the store is next
 * opened (docs/design/0127-git-crash-repair.md).
 *
 * <p>A missing or empty directory becomes a repository at the first write (branch {@code main},
 * one commit holding the {@code .gitignore}); a directory that holds anything else and no {@code
 * .git} directory is refused (blobs and the fs store's lock file do not count). Namespaces and collections whose name starts with {@code .git} (any
 * case) are refused: git reserves them.
 */
public final class GitStore implements Store, AutoCloseable {

  /** The committer of every commit, and the author of a record that names none. */
  public static final String LETHE = "lethe";

  /** The branch a store created by lethe starts on. */
  public static final String BRANCH = "main";

  static final String PENDING = "lethe-pending";
  static final String CONFLICTS = "lethe-conflicts";
  static final String IGNORE = "/~lock\n*.tmp\n*.json.lock\n/_blobs/\n/~ledger/\n";

  private final Path root;
  private final FsStore files;
  private final RepoLock lock;
  private final Clock clock;
  private final RecordJson json = new RecordJson();
  private volatile Repository repo; // null until the first write of a new store

  /** Called between a write's record files and its commit; for crash tests. */
  @FunctionalInterface
  interface CommitObserver {
    /** The write of {@code keys} is on disk and not committed yet. */
    void beforeCommit(Collection<RecordKey> keys) throws IOException;

    /** A commit holds the index lock ({@code .git/index.lock}) and has not moved HEAD yet. */
    default void indexLocked() throws IOException { }

    CommitObserver NONE = keys -> { };
  }

  private final CommitObserver observer;

  private GitStore(Path root, FsStore files, Repository repo, Clock clock, CommitObserver observer) {
    this.observer = observer;
    this.root = root;
    this.files = files;
    this.repo = repo;
    this.clock = clock;
    this.lock = new RepoLock(root);
  }

  /**
   * Opens the git store in {@code dir}, repairing a write a crash left uncommitted.
   *
   * @param dir the work tree; missing or empty: created at the first write
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock stamps records and commits
   * @throws IllegalArgumentException "ancestor cap must be at least 1", or naming {@code dir} when it
   *     is not a directory, or is a non-empty directory that is not a git work tree (a bare
   *     repository included); nothing is written
   * @throws UncheckedIOException when the repository cannot be read
   */
  public static GitStore open(Path dir, int ancestorCap, Clock clock) {
    return open(dir, ancestorCap, clock, dev.lethe.store.fs.WriteObserver.NONE, CommitObserver.NONE);
  }

  /** As {@link #open(Path, int, Clock)}, observing the fs write protocol and the step before each commit. */
  static GitStore open(Path dir, int ancestorCap, Clock clock, dev.lethe.store.fs.WriteObserver fsObserver,
      CommitObserver observer) {
    Path root = dir.toAbsolutePath().normalize();
    FsStore files = new FsStore(root, ancestorCap, clock, fsObserver);
    refusal(root).ifPresent(problem -> {
      throw new IllegalArgumentException(problem);
    });
    Repository repo = null;
    if (Files.isDirectory(root.resolve(Constants.DOT_GIT))) {
      try {
        repo = new FileRepositoryBuilder().setWorkTree(root.toFile())
            .setGitDir(root.resolve(Constants.DOT_GIT).toFile()).setMustExist(true).build();
      } catch (IOException | IllegalArgumentException e) {
        throw new UncheckedIOException("Cannot open git store " + root + ": " + e.getMessage(),
            e instanceof IOException io ? io : new IOException(e));
      }
    }
    GitStore store = new GitStore(root, files, repo, clock, observer);
    if (repo != null) {
      store.repair();
    }
    return store;
  }

  /** The prefix of a git store URI. */
  public static final String SCHEME = "git:";

  /**
   * Returns the directory of a {@code git:DIR} URI ({@code git://DIR} is read as {@code git:DIR}
   * too, as {@code file:} URIs are); empty for a URI of any other scheme.
   *
   * @throws IllegalArgumentException "'git:' names no directory (e.g. git:./notes)"
   */
  public static Optional<Path> directoryOf(String uri) {
    if (uri == null || !uri.startsWith(SCHEME)) {
      return Optional.empty();
    }
    String dir = uri.substring(SCHEME.length());
    if (dir.startsWith("//")) {
      dir = dir.substring(2);
    }
    if (dir.isBlank()) {
      throw new IllegalArgumentException("'" + uri + "' names no directory (e.g. git:./notes)");
    }
    return Optional.of(Path.of(dir));
  }

  /**
   * Says why {@code dir} cannot hold a git store, or empty when it can: it does not exist, is
   * empty (it becomes a repository at the first write) or has a {@code .git} directory. Reads the
   * directory's entries only.
   *
   * @return a message naming {@code dir}: not a directory, not empty and not a git work tree, or
   *     holding a {@code .git} directory that is not a repository
   */
  public static Optional<String> refusal(Path dir) {
    Path root = dir.toAbsolutePath().normalize();
    Path dotGit = root.resolve(Constants.DOT_GIT);
    if (Files.isDirectory(dotGit)) {
      return org.eclipse.jgit.lib.RepositoryCache.FileKey.isGitRepository(dotGit.toFile(),
          org.eclipse.jgit.util.FS.DETECTED) ? Optional.empty()
          : Optional.of(root + " has a .git directory that is not a git repository (no HEAD, objects or refs"
              + " in it); remove it or name another directory");
    }
    if (!Files.exists(root)) {
      return Optional.empty();
    }
    if (!Files.isDirectory(root)) {
      return Optional.of(root + " is not a directory");
    }
    try {
      if (isEmpty(root)) {
        return Optional.empty();
      }
    } catch (IOException e) {
      return Optional.of(root + " cannot be read: " + e.getMessage());
    }
    return Optional.of(root + " is not a git work tree (no .git directory) and not empty"
        + (Files.isRegularFile(root.resolve(Constants.HEAD)) ? ": it looks like a bare repository" : "")
        + "; name an empty or new directory, or a clone");
  }

  /** Whether {@code dir} holds nothing but what the fs store writes before any record (blobs, its lock file). */
  private static boolean isEmpty(Path dir) throws IOException {
    try (var s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).allMatch(n -> n.equals("_blobs") || n.equals("~lock")
          || n.equals(dev.lethe.store.fs.FsLedger.DIR));
    }
  }

  /** Returns the work tree. */
  public Path root() {
    return root;
  }

  /** Returns the file holding {@code key}'s record. @throws IllegalArgumentException as {@link #put} */
  public Path pathOf(RecordKey key) {
    check(key);
    return files.pathOf(key);
  }

  /** Returns {@code key}'s path in the tree, {@code <ns>/<col>/<id>.json}. */
  static String treePath(RecordKey key) {
    return key.namespace() + "/" + key.collection() + "/" + key.id() + FsStore.RECORD_SUFFIX;
  }

  /** Returns the key whose record lives at tree path {@code path}, or empty for any other file. */
  static Optional<RecordKey> keyOf(String path) {
    String[] parts = path.split("/", -1);
    if (parts.length != 3 || !parts[2].endsWith(FsStore.RECORD_SUFFIX)) {
      return Optional.empty();
    }
    String id = parts[2].substring(0, parts[2].length() - FsStore.RECORD_SUFFIX.length());
    if (!RecordKey.isValidPart(parts[0]) || !RecordKey.isValidPart(parts[1]) || !RecordKey.isValidPart(id)
        || reserved(parts[0]) || reserved(parts[1])) {
      return Optional.empty();
    }
    return Optional.of(new RecordKey(parts[0], parts[1], id));
  }

  private static boolean reserved(String part) {
    return part.toLowerCase(Locale.ROOT).startsWith(Constants.DOT_GIT);
  }

  /** Refuses keys git cannot hold, before any I/O. */
  private void check(RecordKey key) {
    checkPart("namespace", key.namespace());
    checkPart("collection", key.collection());
    files.pathOf(key); // _blobs and overlong ids
  }

  private static void checkPart(String what, String part) {
    if (part != null && reserved(part)) {
      throw new IllegalArgumentException("Invalid " + what + " '" + part
          + "': names starting with .git are reserved by git in a git store");
    }
  }

  private static void check(KeyPrefix prefix) {
    checkPart("namespace", prefix.namespace());
    checkPart("collection", prefix.collection());
  }

  // ---- reads: the fs store's ----

  @Override
  public Optional<Record> get(RecordKey key) {
    check(key);
    return files.get(key);
  }

  @Override
  public List<Record> list(KeyPrefix prefix) {
    check(prefix);
    return files.list(prefix);
  }

  @Override
  public Optional<Record> getRaw(RecordKey key) {
    check(key);
    return files.getRaw(key);
  }

  @Override
  public List<Record> listRaw(KeyPrefix prefix) {
    check(prefix);
    return files.listRaw(prefix);
  }

  @Override
  public Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    check(prefix);
    return files.listPage(prefix, after, limit);
  }

  @Override
  public Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    check(prefix);
    return files.listRawPage(prefix, after, limit);
  }

  /**
   * The fs store's ledger, in {@code ~ledger/}: never committed, so each clone has its own id,
   * peers and purge log (docs/design/0150-store-identity-and-peers.md).
   */
  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return files.ledger();
  }

  @Override
  public BlobStore blobs() {
    return files.blobs();
  }

  @Override
  public int ancestorCap() {
    return files.ancestorCap();
  }

  // ---- writes: the fs store's, then one commit ----

  @Override
  public PutResult put(Record record, Optional<Revision> expected) {
    check(record.key());
    return write(List.of(record.key()), "put", true, () -> files.put(record, expected));
  }

  @Override
  public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
    check(key);
    return write(List.of(key), "delete", true, () -> files.deleteAs(key, expected, author));
  }

  @Override
  public PutResult putRaw(Record record, Optional<Revision> expected) {
    check(record.key());
    RawPutPlanner.validate(record);
    return write(List.of(record.key()), "put-raw", false, () -> files.putRaw(record, expected));
  }

  /** {@link Store#putRawBatch}: every item checked first, then the fs store's batch, then one commit. */
  @Override
  public List<PutResult> putRawBatch(List<RawPut> items) {
    List<RecordKey> keys = new ArrayList<>();
    for (RawPut item : items) {
      check(item.record().key());
      RawPutPlanner.validate(item.record());
      keys.add(item.record().key());
    }
    if (items.isEmpty()) {
      return List.of();
    }
    return write(keys, "put-raw", false, () -> files.putRawBatch(items));
  }

  @Override
  public DeleteResult purge(RecordKey key, Optional<Revision> expected) {
    check(key);
    return write(List.of(key), "purge", false, () -> files.purge(key, expected));
  }

  /**
   * Runs {@code op} (an fs store write of {@code keys}) and commits what it changed, under the store
   * lock, with the paths recorded as pending until the commit lands (docs/design/0127-git-crash-repair.md).
   * A consumer write that commits (or a delete that finds the key deleted) resolves the key's
   * conflict of the last pull.
   */
  private <R> R write(List<RecordKey> keys, String verb, boolean consumer, Supplier<R> op) {
    try {
      Repository r = repository();
      return locked(() -> {
        refuseUnmerged(r);
        Set<RecordKey> distinct = new LinkedHashSet<>(keys);
        markPending(distinct);
        R result;
        try {
          result = op.get();
        } catch (UncheckedIOException e) {
          throw e; // the file may have been written: the marker stays for the next open's repair
        } catch (RuntimeException e) {
          clearPending(); // refused before any write (a corrupt stored record, a bad argument)
          throw e;
        }
        observer.beforeCommit(distinct);
        commit(r, distinct, message(verb, distinct));
        clearPending();
        if (consumer && (result instanceof dev.lethe.store.core.Committed
            || result instanceof dev.lethe.store.core.Deleted)) {
          resolve(distinct); // a refused write (Conflict, NotFound) resolves nothing
        }
        return result;
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + (keys.size() == 1 ? keys.get(0) : keys.size() + " records")
          + " to git store " + root, e);
    }
  }

  /**
   * Refuses a write or pull while the index holds a merge the user has not finished: its commit
   * would fail after the record file was written (docs/design/0125-git-store.md).
   *
   * @throws IOException naming the first unmerged paths
   */
  void refuseUnmerged(Repository r) throws IOException {
    DirCache dc = r.readDirCache();
    if (!dc.hasUnmergedPaths()) {
      return;
    }
    Set<String> paths = new TreeSet<>();
    for (int i = 0; i < dc.getEntryCount() && paths.size() < 5; i++) {
      if (dc.getEntry(i).getStage() != DirCacheEntry.STAGE_0) {
        paths.add(dc.getEntry(i).getPathString());
      }
    }
    throw new IOException("a git merge is not finished in " + root + " (unmerged: " + String.join(", ", paths)
        + "); commit or abort it (git merge --abort) first");
  }

  private static String message(String verb, Collection<RecordKey> keys) {
    return keys.size() == 1 ? verb + " " + keys.iterator().next() : verb + " " + keys.size() + " records";
  }

  Path gitDir() {
    return root.resolve(Constants.DOT_GIT);
  }

  /** Returns the repository, creating it (branch main, a first commit with the .gitignore) if needed. */
  Repository repository() throws IOException {
    Repository r = repo;
    if (r != null) {
      return r;
    }
    return lock.inProcess(() -> {
      if (repo != null) {
        return repo;
      }
      Files.createDirectories(root);
      if (!Files.isDirectory(gitDir())) {
        if (!isEmpty(root)) {
          throw new IOException(root + " is no longer empty and is not a git work tree");
        }
        try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch(BRANCH).call()) {
          // closed: reopened below like any other store
        } catch (GitAPIException e) {
          throw new IOException("Cannot create a git repository in " + root + ": " + e.getMessage(), e);
        }
      }
      Repository opened = new FileRepositoryBuilder().setWorkTree(root.toFile()).setGitDir(gitDir().toFile())
          .setMustExist(true).build();
      lock.locked(gitDir(), () -> {
        if (opened.resolve(Constants.HEAD) == null) {
          Path ignore = root.resolve(Constants.GITIGNORE_FILENAME);
          Files.writeString(ignore, IGNORE, StandardCharsets.UTF_8);
          commitFiles(opened, List.of(Constants.GITIGNORE_FILENAME), "create lethe store", LETHE);
        }
        return null;
      });
      repo = opened;
      return opened;
    });
  }

  /** Commits the record files of {@code keys} as they are on disk; nothing when none changed. */
  void commit(Repository r, Collection<RecordKey> keys, String message) throws IOException {
    List<String> paths = new ArrayList<>();
    String author = null;
    for (RecordKey key : keys) {
      paths.add(treePath(key));
      if (author == null) {
        author = authorOf(files.pathOf(key));
      }
    }
    commitFiles(r, paths, message, author == null ? LETHE : author);
  }

  private String authorOf(Path file) {
    try {
      String a = json.decode(Files.readAllBytes(file)).meta().author();
      return a == null ? null : a;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Stages the files at {@code paths} (relative to the work tree) as they are on disk (a missing
   * file is removed) and commits them on HEAD; writes nothing when no path changed.
   *
   * @return whether a commit was made
   */
  boolean commitFiles(Repository r, Collection<String> paths, String message, String author) throws IOException {
    DirCache dc = r.lockDirCache();
    try (ObjectInserter ins = r.newObjectInserter()) {
      observer.indexLocked();
      DirCacheEditor editor = dc.editor();
      boolean changed = false;
      for (String path : paths) {
        Path file = root.resolve(path);
        DirCacheEntry old = dc.getEntry(path);
        byte[] bytes;
        try {
          bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
          if (old != null) {
            editor.add(new DirCacheEditor.DeletePath(path));
            changed = true;
          }
          continue;
        }
        ObjectId id = ins.insert(Constants.OBJ_BLOB, bytes);
        if (old != null && old.getObjectId().equals(id) && old.getFileMode() == FileMode.REGULAR_FILE) {
          continue;
        }
        java.time.Instant modified = Files.getLastModifiedTime(file).toInstant();
        editor.add(new DirCacheEditor.PathEdit(path) {
          @Override
          public void apply(DirCacheEntry ent) {
            ent.setFileMode(FileMode.REGULAR_FILE);
            ent.setObjectId(id);
            ent.setLength(bytes.length);
            ent.setLastModified(modified);
          }
        });
        changed = true;
      }
      if (!changed) {
        return false;
      }
      editor.finish();
      ObjectId tree = dc.writeTree(ins);
      ObjectId head = r.resolve(Constants.HEAD);
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(tree);
      if (head != null) {
        cb.setParentId(head);
      }
      cb.setAuthor(ident(author));
      cb.setCommitter(ident(LETHE));
      cb.setMessage(message + "\n");
      ObjectId commit = ins.insert(cb);
      ins.flush();
      moveHead(r, head, commit, "commit: " + message);
      dc.write();
      if (!dc.commit()) {
        throw new IOException("Cannot write the index of " + root);
      }
      return true;
    } finally {
      dc.unlock();
    }
  }

  /** Moves HEAD's branch from {@code from} (null: unborn) to {@code to}. */
  static void moveHead(Repository r, ObjectId from, ObjectId to, String reflog) throws IOException {
    RefUpdate ru = r.updateRef(Constants.HEAD);
    ru.setNewObjectId(to);
    ru.setExpectedOldObjectId(from == null ? ObjectId.zeroId() : from);
    ru.setRefLogMessage(reflog, false);
    RefUpdate.Result result = ru.update();
    if (result != RefUpdate.Result.NEW && result != RefUpdate.Result.FAST_FORWARD
        && result != RefUpdate.Result.FORCED) {
      throw new IOException("Cannot move HEAD of " + r.getWorkTree() + " to " + to.name() + ": " + result);
    }
  }

  PersonIdent ident(String name) {
    String clean = name.replaceAll("[<>\\p{Cntrl}]", " ").trim();
    return new PersonIdent(clean.isEmpty() ? LETHE : clean, "", clock.instant(), ZoneOffset.UTC);
  }

  // ---- pending writes: docs/design/0127-git-crash-repair.md ----

  private void markPending(Collection<RecordKey> keys) throws IOException {
    markPendingPaths(keys.stream().map(GitStore::treePath).toList());
  }

  /** Records {@code paths} (tree paths) as about to change on disk. Called under the lock. */
  void markPendingPaths(Collection<String> paths) throws IOException {
    StringBuilder s = new StringBuilder();
    for (String path : paths) {
      s.append(path).append('\n');
    }
    Path temp = gitDir().resolve(PENDING + ".tmp");
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(java.nio.ByteBuffer.wrap(s.toString().getBytes(StandardCharsets.UTF_8)));
      ch.force(true);
    }
    Files.move(temp, gitDir().resolve(PENDING), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  void clearPending() throws IOException {
    Files.deleteIfExists(gitDir().resolve(PENDING));
  }

  /**
   * Runs {@code action} under the store lock, first finishing a write a crashed process left
   * behind (docs/design/0127-git-crash-repair.md): the marker is only ever present under the lock
   * when its writer died, whether this store was opened before or after the crash.
   */
  <T> T locked(RepoLock.Action<T> action) throws IOException {
    return lock.locked(gitDir(), () -> {
      Repository r = repo;
      if (r != null && Files.exists(gitDir().resolve(PENDING))) {
        repairLocked(r);
      }
      return action.run();
    });
  }

  private void repair() {
    try {
      locked(() -> null);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot repair git store " + root, e);
    }
  }

  /**
   * Finishes a write a crash left between its record file and its commit: each pending file that
   * is absent or holds a whole record of its key proving its content is committed. The fs write is
   * atomic, so any other file is a hand edit: it is left as it is, for reads to report. The index
   * and ref lock files the dead writer may have held are removed first.
   */
  private void repairLocked(Repository r) throws IOException {
    Path marker = gitDir().resolve(PENDING);
    removeStaleGitLocks(r);
    List<String> good = new ArrayList<>();
    for (String path : Files.readAllLines(marker, StandardCharsets.UTF_8)) {
      Optional<RecordKey> key = keyOf(path);
      if (key.isEmpty()) {
        continue;
      }
      Path file = root.resolve(path);
      if (!Files.exists(file) || provesItself(file, key.get())) {
        good.add(path);
      } // else a hand edit (fs writes are whole): left for reads to report, never overwritten
    }
    commitFiles(r, good, "repair: commit a write interrupted before its commit", LETHE);
    Files.delete(marker);
  }

  /** Removes the index's, HEAD's and HEAD's branch's lock files, which only a dead writer can hold here. */
  private void removeStaleGitLocks(Repository r) throws IOException {
    Files.deleteIfExists(gitDir().resolve("index.lock"));
    Files.deleteIfExists(gitDir().resolve(Constants.HEAD + ".lock"));
    org.eclipse.jgit.lib.Ref head = r.exactRef(Constants.HEAD);
    if (head != null && head.isSymbolic()) {
      Files.deleteIfExists(gitDir().resolve(head.getTarget().getName() + ".lock"));
    }
  }

  private boolean provesItself(Path file, RecordKey key) {
    try {
      Record rec = json.decode(Files.readAllBytes(file));
      return rec.key().equals(key) && RevisionHash.problem(rec).isEmpty();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  // ---- conflicts of the last pull: docs/design/0126-git-pull-and-push.md ----

  /** Returns the keys the last pull left in conflict and no consumer write has resolved yet, sorted. */
  public List<RecordKey> unresolvedConflicts() {
    Path file = gitDir().resolve(CONFLICTS);
    try {
      List<RecordKey> out = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        keyOf(line).ifPresent(out::add);
      }
      return out;
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the conflicts of git store " + root, e);
    }
  }

  /** Replaces the recorded conflicts. Called under the lock. */
  void recordConflicts(Collection<RecordKey> keys) throws IOException {
    Path file = gitDir().resolve(CONFLICTS);
    if (keys.isEmpty()) {
      Files.deleteIfExists(file);
      return;
    }
    Set<String> lines = new TreeSet<>();
    keys.forEach(k -> lines.add(treePath(k)));
    Path temp = gitDir().resolve(CONFLICTS + ".tmp");
    Files.write(temp, lines, StandardCharsets.UTF_8);
    Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private void resolve(Set<RecordKey> keys) throws IOException {
    List<RecordKey> open = unresolvedConflicts();
    if (!open.isEmpty() && open.stream().anyMatch(keys::contains)) {
      List<RecordKey> left = new ArrayList<>(open);
      left.removeAll(keys);
      recordConflicts(left);
    }
  }

  /** Package access for pull and push: the fs store, the repository (null before the first write). */
  FsStore files() {
    return files;
  }

  Repository repositoryIfCreated() {
    return repo;
  }

  File workTree() {
    return root.toFile();
  }

  /** Closes the repository and lets go of the fs store's lock file. */
  @Override
  public void close() {
    files.close();
    Repository r = repo;
    if (r != null) {
      r.close();
    }
  }

  @Override
  public String toString() {
    return "git:" + root;
  }
}
