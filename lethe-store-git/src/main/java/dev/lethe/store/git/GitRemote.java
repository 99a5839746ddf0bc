package dev.lethe.store.git;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.ledger.PurgeEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheCheckout;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.CheckoutConflictException;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.revwalk.filter.RevFilter;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteConfig;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * {@code pull} and {@code push} of a git store (docs/design/0126-git-pull-and-push.md). A pull
 * fetches the remote's branch of the same name and merges it under the store lock: a path changed
 * on one side only is taken from that side; a record changed on both sides since the merge base
 * is decided by {@link PullPlanner}. A push sends the branch, and is refused while the last pull's
 * conflicts are unresolved.
 */
public final class GitRemote {

  /** The remote pulled from and pushed to when none is named. */
  public static final String DEFAULT_REMOTE = "origin";

  private GitRemote() {}

  /** One key a pull could not reconcile; the local record stayed. */
  public record PullConflict(RecordKey key, String reason) {}

  /**
   * What a pull did.
   *
   * @param outcome {@code up-to-date}, {@code fast-forward} or {@code merged}
   * @param taken records taken from the remote (changed there only, or newer there)
   * @param merged records merged by their kind's merge class
   * @param restored tombstones this store had collected written back over the remote's stale record
   *     (docs/design/0152-sync-restores-collected-tombstones.md)
   * @param conflicts keys left in conflict by this pull, sorted
   */
  public record PullReport(String outcome, int taken, int merged, int restored, List<PullConflict> conflicts) {}

  /** What a push did. */
  public sealed interface PushOutcome {}

  /** The branch was sent ({@code upToDate}: the remote had it already). */
  public record Pushed(String branch, boolean upToDate) implements PushOutcome {}

  /** Refused before sending: the last pull left these keys in conflict, sorted. */
  public record Refused(List<RecordKey> conflicts) implements PushOutcome {}

  /** The remote refused the update (it has commits not pulled yet). */
  public record Rejected(String reason) implements PushOutcome {}

  /**
   * Fetches {@code remote} and merges its branch into the store's.
   *
   * @throws IllegalArgumentException when the store has no repository yet or no such remote
   * @throws UncheckedIOException when fetching fails, or a path the pull would change has an
   *     uncommitted change (nothing is changed then)
   */
  public static PullReport pull(GitStore store, String remote) {
    Repository r = repository(store, remote);
    try {
      return store.locked(() -> {
        store.refuseUnmerged(r);
        fetch(r, remote);
        String branch = r.getBranch();
        Ref ref = r.exactRef(Constants.R_REMOTES + remote + "/" + branch);
        ObjectId head = r.resolve(Constants.HEAD);
        if (ref == null || head == null) {
          return new PullReport("up-to-date", 0, 0, 0, List.of());
        }
        try (RevWalk walk = new RevWalk(r)) {
          RevCommit ours = walk.parseCommit(head);
          RevCommit theirs = walk.parseCommit(ref.getObjectId());
          if (walk.isMergedInto(theirs, ours)) {
            return new PullReport("up-to-date", 0, 0, 0, List.of());
          }
          PurgeLog log = new PurgeLog(store);
          if (walk.isMergedInto(ours, theirs) && !needsAMerge(r, log, ours.getTree(), theirs.getTree())) {
            logRemovedTombstones(store, r, ours, theirs, removedPaths(r, ours.getTree(), theirs.getTree()));
            checkout(store, r, ours.getTree(), theirs.getTree());
            GitStore.moveHead(r, ours, theirs, "pull " + remote + ": fast-forward");
            return new PullReport("fast-forward", 0, 0, 0, List.of());
          }
          return merge(store, r, remote, walk, ours, theirs, log);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot pull " + store + " from remote " + remote, e);
    }
  }

  /**
   * The local purge log's newest entry per key, read once and only when a pull meets a key the
   * local side does not hold (docs/design/0126-git-pull-and-push.md "The purge log").
   */
  private static final class PurgeLog {
    private final GitStore store;
    private Map<RecordKey, PurgeEntry> newest;

    PurgeLog(GitStore store) {
      this.store = store;
    }

    Optional<PurgeEntry> newest(RecordKey key) {
      if (newest == null) {
        newest = new HashMap<>();
        for (PurgeEntry e : store.ledger().purged(KeyPrefix.all())) {
          newest.merge(e.key(), e, (x, y) -> y.tombstone().compareTo(x.tombstone()) >= 0 ? y : x);
        }
      }
      return Optional.ofNullable(newest.get(key));
    }
  }

  /**
   * Whether a fast-forward from {@code from} to {@code to} would check out something the store's
   * rules do not take as it is, so the pull merges instead (docs/design/0126-git-pull-and-push.md):
   * a record that does not parse or prove itself (the merge keeps ours), or a live record at a key
   * this store collected the tombstone of that is the deleted revision or an edit of it (the merge
   * restores the tombstone, or keeps the key in conflict).
   */
  private static boolean needsAMerge(Repository r, PurgeLog log, RevTree from, RevTree to) throws IOException {
    RecordJson json = new RecordJson();
    try (TreeWalk tw = new TreeWalk(r)) {
      tw.setRecursive(true);
      tw.addTree(from);
      tw.addTree(to);
      tw.setFilter(TreeFilter.ANY_DIFF);
      while (tw.next()) {
        Optional<RecordKey> key = GitStore.keyOf(tw.getPathString());
        if (key.isPresent()) {
          Optional<Record> theirs;
          try {
            theirs = read(r, json, key.get(), tw.getObjectId(1), "on the remote");
          } catch (IllegalStateException unreadable) {
            return true;
          }
          if (tw.getObjectId(0).equals(ObjectId.zeroId()) && theirs.isPresent() && !theirs.get().isTombstone()
              && !(PullPlanner.plan(Optional.empty(), theirs, log.newest(key.get())) instanceof PullPlanner.TakeTheirs)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The record paths {@code from} holds and {@code to} does not. */
  private static Set<String> removedPaths(Repository r, RevTree from, RevTree to) throws IOException {
    Set<String> removed = new LinkedHashSet<>();
    try (TreeWalk tw = new TreeWalk(r)) {
      tw.setRecursive(true);
      tw.addTree(from);
      tw.addTree(to);
      tw.setFilter(TreeFilter.ANY_DIFF);
      while (tw.next()) {
        if (tw.getObjectId(1).equals(ObjectId.zeroId()) && GitStore.keyOf(tw.getPathString()).isPresent()) {
          removed.add(tw.getPathString());
        }
      }
    }
    return removed;
  }

  /**
   * Appends to the local purge log, before the pull removes them here, the tombstones another clone
   * collected (docs/design/0126-git-pull-and-push.md "The purge log"): for each removed path, the
   * tombstone the remote's history removed last (a commit not in {@code ours} whose parent held a
   * tombstone there and which does not), else the tombstone this store holds. A live record removed
   * without a tombstone in between (a raw purge of a live record) logs nothing, as a raw purge does.
   */
  private static void logRemovedTombstones(GitStore store, Repository r, RevCommit ours, RevCommit theirs,
      Set<String> removed) throws IOException {
    if (removed.isEmpty()) {
      return;
    }
    RecordJson json = new RecordJson();
    Map<String, Record> tombstones = new HashMap<>();
    try (RevWalk history = new RevWalk(r)) {
      history.markStart(history.parseCommit(theirs));
      history.markUninteresting(history.parseCommit(ours));
      for (RevCommit c : history) { // newest first: the first removal found is the last one made
        for (RevCommit parent : c.getParents()) {
          history.parseHeaders(parent);
          try (TreeWalk tw = new TreeWalk(r)) {
            tw.setRecursive(true);
            tw.addTree(parent.getTree());
            tw.addTree(c.getTree());
            tw.setFilter(AndTreeFilter.create(PathFilterGroup.createFromStrings(removed), TreeFilter.ANY_DIFF));
            while (tw.next()) {
              String path = tw.getPathString();
              if (tw.getObjectId(1).equals(ObjectId.zeroId()) && !tombstones.containsKey(path)) {
                tombstoneAt(r, json, path, tw.getObjectId(0)).ifPresent(t -> tombstones.put(path, t));
              }
            }
          }
        }
      }
    }
    try (TreeWalk here = new TreeWalk(r)) {
      here.setRecursive(true);
      here.addTree(ours.getTree());
      here.setFilter(PathFilterGroup.createFromStrings(removed));
      while (here.next()) {
        String path = here.getPathString();
        if (!tombstones.containsKey(path)) {
          tombstoneAt(r, json, path, here.getObjectId(0)).ifPresent(t -> tombstones.put(path, t));
        }
      }
    }
    long now = store.ledger().now();
    for (String path : removed) {
      Record t = tombstones.get(path);
      if (t != null && t.parent() != null) {
        store.ledger().appendPurged(PurgeEntry.of(t, now));
      }
    }
  }

  private static Optional<Record> tombstoneAt(Repository r, RecordJson json, String path, ObjectId id)
      throws IOException {
    Optional<RecordKey> key = GitStore.keyOf(path);
    if (key.isEmpty()) {
      return Optional.empty();
    }
    try {
      return read(r, json, key.get(), id, "in the history").filter(Record::isTombstone);
    } catch (IllegalStateException unreadable) {
      return Optional.empty(); // a broken file logs nothing: there is no revision to remember
    }
  }

  private static PullReport merge(GitStore store, Repository r, String remote, RevWalk walk, RevCommit ours,
      RevCommit theirs, PurgeLog log) throws IOException {
    RevCommit base;
    try (RevWalk bases = new RevWalk(r)) {
      bases.setRevFilter(RevFilter.MERGE_BASE);
      bases.markStart(bases.parseCommit(ours));
      bases.markStart(bases.parseCommit(theirs));
      RevCommit found = bases.next();
      base = found == null ? null : walk.parseCommit(found);
    }
    Map<String, ObjectId> edits = new LinkedHashMap<>(); // null: remove
    List<PullConflict> conflicts = new ArrayList<>();
    int taken = 0;
    int merged = 0;
    int restored = 0;
    RecordJson json = new RecordJson();
    try (TreeWalk tw = new TreeWalk(r); ObjectInserter ins = r.newObjectInserter()) {
      tw.setRecursive(true);
      if (base == null) {
        tw.addTree(new EmptyTreeIterator());
      } else {
        tw.addTree(base.getTree());
      }
      tw.addTree(ours.getTree());
      tw.addTree(theirs.getTree());
      tw.setFilter(TreeFilter.ANY_DIFF);
      while (tw.next()) {
        String path = tw.getPathString();
        ObjectId b = tw.getObjectId(0);
        ObjectId o = tw.getObjectId(1);
        ObjectId t = tw.getObjectId(2);
        if (o.equals(t) || t.equals(b)) {
          continue; // the same on both sides, or changed here only
        }
        Optional<RecordKey> key = GitStore.keyOf(path);
        boolean collectedHere = false;
        if (o.equals(b) && key.isPresent()) {
          try {
            Optional<Record> offered = read(r, json, key.get(), t, "on the remote"); // docs/design/0126-git-pull-and-push.md
            collectedHere = o.equals(ObjectId.zeroId()) && offered.isPresent() && !offered.get().isTombstone()
                && log.newest(key.get()).isPresent();
          } catch (IllegalStateException unreadable) {
            conflicts.add(new PullConflict(key.get(), unreadable.getMessage()));
            continue;
          }
        }
        if (o.equals(b) && !collectedHere) {
          edits.put(path, t.equals(ObjectId.zeroId()) ? null : t); // changed on the remote only
          taken += key.isPresent() ? 1 : 0;
          continue;
        }
        if (key.isEmpty()) {
          continue; // a file that is not a record, changed on both sides: ours stays
        }
        Optional<Record> mine;
        Optional<Record> remoteSide;
        try {
          mine = read(r, json, key.get(), o, "here");
          remoteSide = read(r, json, key.get(), t, "on the remote");
        } catch (IllegalStateException unreadable) {
          conflicts.add(new PullConflict(key.get(), unreadable.getMessage()));
          continue;
        }
        PullPlanner.Decision d = PullPlanner.plan(mine, remoteSide,
            mine.isEmpty() ? log.newest(key.get()) : Optional.empty());
        if (d instanceof PullPlanner.RestoreTombstone back) {
          edits.put(path, ins.insert(Constants.OBJ_BLOB, json.encode(back.tombstone())));
          restored++;
        } else if (d instanceof PullPlanner.TakeTheirs) {
          edits.put(path, t.equals(ObjectId.zeroId()) ? null : t);
          taken++;
        } else if (d instanceof PullPlanner.Merged m) {
          edits.put(path, ins.insert(Constants.OBJ_BLOB, json.encode(m.record())));
          merged++;
        } else if (d instanceof PullPlanner.Conflict c) {
          conflicts.add(new PullConflict(key.get(), c.reason()));
        }
      }
      DirCache tree = DirCache.newInCore();
      DirCacheBuilder builder = tree.builder();
      try (ObjectReader reader = r.newObjectReader()) {
        builder.addTree(new byte[0], DirCacheEntry.STAGE_0, reader, ours.getTree());
      }
      builder.finish();
      DirCacheEditor editor = tree.editor();
      edits.forEach((path, id) -> editor.add(id == null ? new DirCacheEditor.DeletePath(path)
          : new DirCacheEditor.PathEdit(path) {
            @Override
            public void apply(DirCacheEntry ent) {
              ent.setFileMode(FileMode.REGULAR_FILE);
              ent.setObjectId(id);
            }
          }));
      editor.finish();
      ObjectId treeId = tree.writeTree(ins);
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(treeId);
      cb.setParentIds(ours, theirs);
      cb.setAuthor(store.ident(GitStore.LETHE));
      cb.setCommitter(store.ident(GitStore.LETHE));
      cb.setMessage("pull " + remote + ": " + taken + " taken, " + merged + " merged, "
          + (restored == 0 ? "" : restored + " restored, ") + conflicts.size() + " conflicts\n"
          + conflictLines(conflicts));
      ObjectId commit = ins.insert(cb);
      ins.flush();
      Set<String> removed = new LinkedHashSet<>();
      edits.forEach((path, id) -> {
        if (id == null) {
          removed.add(path);
        }
      });
      logRemovedTombstones(store, r, ours, theirs, removed);
      store.markPendingPaths(edits.keySet());
      checkout(store, r, ours.getTree(), walk.parseTree(treeId));
      GitStore.moveHead(r, ours, commit, "pull " + remote + ": merge");
      store.clearPending();
    }
    Set<RecordKey> open = new LinkedHashSet<>(store.unresolvedConflicts());
    conflicts.forEach(c -> open.add(c.key()));
    store.recordConflicts(open);
    conflicts.sort(java.util.Comparator.comparing(PullConflict::key));
    return new PullReport("merged", taken, merged, restored, List.copyOf(conflicts));
  }

  private static String conflictLines(List<PullConflict> conflicts) {
    StringBuilder s = new StringBuilder();
    if (!conflicts.isEmpty()) {
      s.append('\n');
    }
    conflicts.forEach(c -> s.append("conflict: ").append(c.key()).append(": ").append(c.reason()).append('\n'));
    return s.toString();
  }

  /** Reads one side's record; empty when that side removed the file. @throws IllegalStateException naming the side */
  private static Optional<Record> read(Repository r, RecordJson json, RecordKey key, ObjectId id, String side)
      throws IOException {
    if (id.equals(ObjectId.zeroId())) {
      return Optional.empty();
    }
    Record rec;
    try {
      rec = json.decode(r.open(id, Constants.OBJ_BLOB).getBytes());
    } catch (RuntimeException e) {
      throw new IllegalStateException("the record " + side + " does not parse: " + e.getMessage());
    }
    Optional<String> problem = RevisionHash.problem(rec);
    if (!rec.key().equals(key) || problem.isPresent()) {
      throw new IllegalStateException("the record " + side + " is corrupt: "
          + problem.orElse("it holds key " + rec.key()));
    }
    return Optional.of(rec);
  }

  /** Moves the index and the work tree from {@code from} to {@code to}; refuses over an uncommitted change. */
  private static void checkout(GitStore store, Repository r, RevTree from, RevTree to) throws IOException {
    DirCache dc = r.lockDirCache();
    DirCacheCheckout co = new DirCacheCheckout(r, from, dc, to);
    co.setFailOnConflict(true);
    try {
      co.checkout();
    } catch (CheckoutConflictException e) {
      throw new IOException("uncommitted changes in " + store.root() + " would be overwritten: "
          + String.join(", ", co.getConflicts()) + " (write or delete those keys through lethe first)", e);
    } finally {
      dc.unlock();
    }
  }

  private static void fetch(Repository r, String remote) throws IOException {
    try (Git git = Git.wrap(r)) {
      git.fetch().setRemote(remote).call();
    } catch (GitAPIException e) {
      throw new IOException("cannot fetch from remote " + remote + ": " + e.getMessage(), e);
    }
  }

  /**
   * Sends the store's branch to the same branch of {@code remote}, unless the last pull's conflicts
   * are unresolved.
   *
   * @throws IllegalArgumentException when the store has no repository yet or no such remote
   * @throws UncheckedIOException when the remote cannot be reached
   */
  public static PushOutcome push(GitStore store, String remote) {
    Repository r = repository(store, remote);
    try {
      return store.locked(() -> {
        List<RecordKey> open = store.unresolvedConflicts();
        if (!open.isEmpty()) {
          return new Refused(open);
        }
        String branch = r.getBranch();
        RefSpec spec = new RefSpec(Constants.R_HEADS + branch + ":" + Constants.R_HEADS + branch);
        Iterable<PushResult> results;
        try (Git git = Git.wrap(r)) {
          results = git.push().setRemote(remote).setRefSpecs(spec).call();
        } catch (GitAPIException e) {
          throw new IOException("cannot push to remote " + remote + ": " + e.getMessage(), e);
        }
        for (PushResult result : results) {
          for (RemoteRefUpdate u : result.getRemoteUpdates()) {
            switch (u.getStatus()) {
              case OK:
                return new Pushed(branch, false);
              case UP_TO_DATE:
                return new Pushed(branch, true);
              case REJECTED_NONFASTFORWARD:
                return new Rejected("the remote's " + branch + " has commits this store has not pulled:"
                    + " run lethe store pull first");
              default:
                throw new IOException("remote " + remote + " refused " + branch + ": " + u.getStatus()
                    + (u.getMessage() == null ? "" : " (" + u.getMessage() + ")"));
            }
          }
        }
        throw new IOException("remote " + remote + " answered nothing for " + branch);
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot push " + store + " to remote " + remote, e);
    }
  }

  private static Repository repository(GitStore store, String remote) {
    Repository r = store.repositoryIfCreated();
    if (r == null) {
      throw new IllegalArgumentException(store + " has no repository yet: clone one there, or write a record first");
    }
    try {
      if (new RemoteConfig(r.getConfig(), remote).getURIs().isEmpty()) {
        throw new IllegalArgumentException(store + " has no remote named '" + remote + "' (git remote add "
            + remote + " URL)");
      }
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(store + ": remote '" + remote + "' has a malformed URL: " + e.getMessage());
    }
    return r;
  }
}
