package dev.lethe.store.git;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectGate;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.testing.MutableClock;
import dev.lethe.store.git.GitRemote.PullReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.transport.URIish;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two clones of one bare remote in a temp dir, pulling and pushing through {@link GitRemote}. */
class GitPullPushTest {

  @TempDir Path dir;
  private final MutableClock clockA = MutableClock.at2026();
  private final MutableClock clockB = MutableClock.at2026();
  private final RecordKey key = new RecordKey("notes", "2026", "todo");
  private Path bare;
  private GitStore a;
  private GitStore b;

  /** A writes the key and pushes; B is a clone of the remote. */
  @BeforeEach
  void setUp() throws Exception {
    bare = dir.resolve("remote.git");
    Git.init().setBare(true).setInitialBranch(GitStore.BRANCH).setDirectory(bare.toFile()).call().close();
    a = GitStore.open(dir.resolve("a"), 32, clockA);
    put(a, "v1");
    try (Git git = Git.open(dir.resolve("a").toFile())) {
      git.remoteAdd().setName("origin").setUri(new URIish(bare.toUri().toString())).call();
    }
    assertThat(GitRemote.push(a, "origin")).isEqualTo(new GitRemote.Pushed(GitStore.BRANCH, false));
    Git.cloneRepository().setURI(bare.toUri().toString()).setDirectory(dir.resolve("b").toFile()).call().close();
    b = GitStore.open(dir.resolve("b"), 32, clockB);
    assertThat(b.get(key)).map(GitPullPushTest::text).contains("v1");
  }

  private Record put(GitStore s, String text) {
    Optional<Record> now = s.getRaw(key);
    Optional<dev.lethe.store.core.Revision> expected = now.filter(r -> !r.isTombstone()).map(Record::revision);
    return ((Committed) s.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor("alice")),
        expected)).record();
  }

  private static String text(Record r) {
    return ((Body.Inline) r.body()).text();
  }

  @Test
  void aDeleteOnOneCloneAgainstAnEditOnTheOtherIsAConflictThatKeepsTheLocalSideAndRefusesPushUntilResolved() {
    a.delete(key, Optional.empty());
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);
    put(b, "v2 edited on b");

    PullReport pull = GitRemote.pull(b, "origin");
    assertThat(pull.outcome()).isEqualTo("merged");
    assertThat(pull.conflicts()).extracting(GitRemote.PullConflict::key).containsExactly(key);
    assertThat(pull.conflicts().get(0).reason()).contains("deleted at").contains("on the remote");
    assertThat(b.get(key)).map(GitPullPushTest::text).contains("v2 edited on b");
    assertThat(b.unresolvedConflicts()).containsExactly(key);
    assertThat(GitRemote.push(b, "origin")).isEqualTo(new GitRemote.Refused(List.of(key)));

    // a later pull does not forget it; a consumer write resolves it
    assertThat(GitRemote.pull(b, "origin").outcome()).isEqualTo("up-to-date");
    assertThat(b.unresolvedConflicts()).containsExactly(key);
    // a refused write resolves nothing
    assertThat(b.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("stale"), Meta.EMPTY), Optional.empty()))
        .isInstanceOf(dev.lethe.store.core.Conflict.class);
    assertThat(b.unresolvedConflicts()).containsExactly(key);
    put(b, "v3 kept on purpose");
    assertThat(b.unresolvedConflicts()).isEmpty();
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    assertThat(GitRemote.pull(a, "origin").outcome()).isEqualTo("fast-forward");
    assertThat(a.get(key)).map(GitPullPushTest::text).contains("v3 kept on purpose");
  }

  @Test
  void equalDeletesOnBothClonesConvergeWithoutAConflict() {
    clockB.advance(Duration.ofMinutes(5)); // the two tombstones' files differ (deletedAt), their revisions do not
    a.delete(key, Optional.empty());
    b.delete(key, Optional.empty());
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Rejected.class);

    PullReport pull = GitRemote.pull(b, "origin");
    assertThat(pull.conflicts()).isEmpty();
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    assertThat(GitRemote.pull(a, "origin").conflicts()).isEmpty();
    assertThat(a.getRaw(key).orElseThrow().isTombstone()).isTrue();
    assertThat(b.getRaw(key).orElseThrow().revision()).isEqualTo(a.getRaw(key).orElseThrow().revision());
    assertThat(a.get(key)).isEmpty();
    assertThat(b.get(key)).isEmpty();
  }

  @Test
  void aRecreateAfterADeleteWinsOnBothClonesAfterPull() {
    clockB.advance(Duration.ofMinutes(5)); // else b's delete commit is a's, byte for byte
    a.delete(key, Optional.empty());
    Record recreated = put(a, "back again");
    b.delete(key, Optional.empty()); // the same tombstone revision as a's, which the recreate descends from
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);

    PullReport pull = GitRemote.pull(b, "origin");
    assertThat(pull.conflicts()).isEmpty();
    assertThat(pull.taken()).isEqualTo(1);
    assertThat(b.get(key)).contains(recreated);
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    GitRemote.pull(a, "origin");
    assertThat(a.get(key)).contains(recreated);
  }

  @Test
  void aPullFastForwardsARecordOverThePeersOlderRevisionAndKeepsALocalNewerOne() {
    RecordKey other = new RecordKey("notes", "2026", "other");
    Record v2 = put(a, "v2 on a");
    // b gets a's v2 by a raw write (as sync would), then edits it: both sides changed the file
    b.putRaw(v2, b.getRaw(key).map(Record::revision));
    Record v3 = put(b, "v3 on b");
    b.put(Record.draft(other, Kind.DOCUMENT, Body.Inline.text("x"), Meta.EMPTY), Optional.empty());
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);

    PullReport pull = GitRemote.pull(a, "origin");
    assertThat(pull.outcome()).isEqualTo("merged");
    assertThat(pull.conflicts()).isEmpty();
    assertThat(pull.taken()).isEqualTo(2);
    assertThat(a.get(key)).contains(v3);
    assertThat(a.get(other)).isPresent();

    // the other way round: a's newer revision stays over the remote's older one
    Record v4 = put(a, "v4 on a");
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);
    b.putRaw(v4, Optional.of(v3.revision()));
    b.put(Record.draft(new RecordKey("notes", "2026", "third"), Kind.DOCUMENT, Body.Inline.text("y"), Meta.EMPTY),
        Optional.empty());
    Record v5 = put(b, "v5 on b");
    PullReport back = GitRemote.pull(b, "origin");
    assertThat(back.conflicts()).isEmpty();
    assertThat(b.get(key)).contains(v5);
  }

  @Test
  void appendOnlyRecordsEditedOnBothSidesAreMergedByLineUnion() {
    RecordKey log = new RecordKey("notes", "2026", "log");
    Record first = ((Committed) a.put(Record.draft(log, Kind.LOG, Body.Inline.text("one\n"), Meta.EMPTY),
        Optional.empty())).record();
    GitRemote.push(a, "origin");
    GitRemote.pull(b, "origin");
    a.put(Record.draft(log, Kind.LOG, Body.Inline.text("one\ntwo\n"), Meta.EMPTY), Optional.of(first.revision()));
    b.put(Record.draft(log, Kind.LOG, Body.Inline.text("one\nthree\n"), Meta.EMPTY), Optional.of(first.revision()));
    GitRemote.push(a, "origin");
    PullReport pull = GitRemote.pull(b, "origin");
    assertThat(pull.merged()).isEqualTo(1);
    assertThat(text(b.get(log).orElseThrow())).contains("one\n").contains("two\n").contains("three\n");
  }

  /** A peer that committed a broken record with plain git (a hand edit, a user's merge): pull keeps ours. */
  @Test
  void aRecordChangedOnlyOnTheRemoteThatDoesNotParseOrProveItselfIsAConflictAndTheLocalRecordStays() throws Exception {
    RecordKey second = new RecordKey("notes", "2026", "second");
    a.put(Record.draft(second, Kind.DOCUMENT, Body.Inline.text("v1"), Meta.EMPTY), Optional.empty());
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);
    assertThat(GitRemote.pull(b, "origin").conflicts()).isEmpty();
    try (Git git = Git.open(dir.resolve("b").toFile())) {
      for (RecordKey k : List.of(key, second)) {
        Path file = dir.resolve("b").resolve(GitStore.treePath(k));
        String broken = k.equals(key) ? "<<<<<<< HEAD\nv1\n=======\nv2\n>>>>>>> side\n"
            : java.nio.file.Files.readString(file).replace("\"text\" : \"v1\"", "\"text\" : \"forged\"");
        assertThat(broken).doesNotContain("\"v1\"");
        java.nio.file.Files.writeString(file, broken);
        git.add().addFilepattern(GitStore.treePath(k)).call();
        git.commit().setMessage("by hand").call();
        git.push().setRemote("origin").call();

        PullReport pull = GitRemote.pull(a, "origin");
        assertThat(pull.conflicts()).extracting(GitRemote.PullConflict::key).containsExactly(k);
        assertThat(pull.conflicts().get(0).reason()).contains("on the remote");
        assertThat(a.get(k)).map(GitPullPushTest::text).contains("v1");
      }
    }
    assertThat(a.unresolvedConflicts()).containsExactly(second, key);
    put(a, "v2 written after the pull");
    assertThat(a.unresolvedConflicts()).containsExactly(second);
  }

  // ---- the purge log: docs/design/0126-git-pull-and-push.md "The purge log" ----

  /** Deletes the key on {@code s} and collects its tombstone (a day's horizon, two days later). */
  private static Record deleteAndCollect(GitStore s, MutableClock clock, RecordKey k) {
    Record live = s.getRaw(k).orElseThrow();
    s.delete(k, Optional.empty());
    clock.advance(Duration.ofDays(2));
    assertThat(Collect.run(s, KeyPrefix.all(), Duration.ofDays(1), clock, Progress.NONE, CollectGate.Mode.FORCE,
        CollectGate.DEFAULT_SKEW).purged()).isEqualTo(1);
    assertThat(s.getRaw(k)).isEmpty();
    return live;
  }

  @Test
  void aPullOfAnEditOfARevisionThisCloneCollectedTheDeleteOfIsAConflictAndPushIsRefused() {
    Record v1 = b.getRaw(key).orElseThrow();
    deleteAndCollect(b, clockB, key);
    Record v2 = put(a, "v2 edited offline on a");
    assertThat(v2.parent()).isEqualTo(v1.revision());
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);

    PullReport pull = GitRemote.pull(b, "origin");
    assertThat(pull.conflicts()).extracting(GitRemote.PullConflict::key).containsExactly(key);
    assertThat(pull.conflicts().get(0).reason()).contains("collected here").contains("on the remote");
    assertThat(pull.taken()).isZero();
    assertThat(b.getRaw(key)).isEmpty(); // not brought back: taken before, with no conflict
    assertThat(GitRemote.push(b, "origin")).isEqualTo(new GitRemote.Refused(List.of(key)));
  }

  @Test
  void aPullThatWouldFastForwardToTheDeletedRevisionRestoresTheTombstoneOnBothClones() {
    assertRestoredThroughPull(false);
  }

  @Test
  void aPullThatMergesTheDeletedRevisionRestoresTheTombstoneOnBothClones() {
    assertRestoredThroughPull(true);
  }

  /**
   * b collects a delete and pushes; a (which never pulled it) copies the deleted revision in raw, as
   * an older peer's sync would, and pushes it; b's pull must write the tombstone back, not take it.
   */
  private void assertRestoredThroughPull(boolean localWriteFirst) {
    RecordKey other = new RecordKey("notes", "2026", "other");
    Record v1 = deleteAndCollect(b, clockB, key);
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    assertThat(GitRemote.pull(a, "origin").outcome()).isEqualTo("fast-forward");
    a.putRaw(v1, Optional.empty()); // the deleted revision, offered again
    assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);
    if (localWriteFirst) {
      b.put(Record.draft(other, Kind.DOCUMENT, Body.Inline.text("x"), Meta.EMPTY), Optional.empty());
    }

    PullReport pull = GitRemote.pull(b, "origin");
    assertThat(pull.outcome()).isEqualTo("merged");
    assertThat(pull.conflicts()).isEmpty();
    assertThat(pull.restored()).isEqualTo(1);
    assertThat(b.get(key)).isEmpty();
    Record tombstone = b.getRaw(key).orElseThrow();
    assertThat(tombstone.isTombstone()).isTrue();
    assertThat(tombstone.parent()).isEqualTo(v1.revision());
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    assertThat(GitRemote.pull(a, "origin").conflicts()).isEmpty();
    assertThat(a.get(key)).isEmpty(); // the delete travelled to the clone that offered the record
    assertThat(a.getRaw(key)).contains(tombstone);
  }

  @Test
  void aTombstoneAnotherCloneCollectedIsLoggedOnAFastForwardAndStopsAThirdPeer() {
    assertLoggedAndStops(false);
  }

  @Test
  void aTombstoneAnotherCloneCollectedIsLoggedOnAMergeAndStopsAThirdPeer() {
    assertLoggedAndStops(true);
  }

  private void assertLoggedAndStops(boolean localWriteFirst) {
    MemoryStore stale = new MemoryStore(32, clockA);
    Record v1 = a.getRaw(key).orElseThrow();
    stale.putRaw(v1, Optional.empty()); // a peer that synced before the delete and went offline
    deleteAndCollect(b, clockB, key);
    assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    if (localWriteFirst) {
      a.put(Record.draft(new RecordKey("notes", "2026", "other"), Kind.DOCUMENT, Body.Inline.text("x"), Meta.EMPTY),
          Optional.empty());
    }

    PullReport pull = GitRemote.pull(a, "origin");
    assertThat(pull.outcome()).isEqualTo(localWriteFirst ? "merged" : "fast-forward");
    assertThat(a.getRaw(key)).isEmpty();
    List<PurgeEntry> log = a.ledger().purged(KeyPrefix.all());
    assertThat(log).extracting(PurgeEntry::key).containsExactly(key);
    assertThat(log.get(0).deleted()).isEqualTo(v1.revision());

    SyncReport sync = Sync.run(a, stale, KeyPrefix.all(), SyncOptions.DEFAULTS);
    assertThat(sync.restored()).isEqualTo(1);
    assertThat(a.get(key)).isEmpty();
    assertThat(stale.get(key)).isEmpty();
    assertThat(stale.getRaw(key).orElseThrow().isTombstone()).isTrue();
  }
}
