package dev.lethe.store.git;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.URIish;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A writer of a git store killed (SIGKILL) inside a write; the next open repairs it (docs/design/0127-git-crash-repair.md). */
class GitCrashRepairTest {

  @TempDir Path dir;
  private final RecordKey key = new RecordKey("ns", "col", "rec");

  private static String text(Record r) {
    return ((Body.Inline) r.body()).text();
  }

  /** Runs {@link GitStallingWriter} on {@code repo} and kills it once it reports {@code step}. */
  private static void killWriterAt(Path repo, RecordKey key, String step) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        GitStallingWriter.class.getName(), repo.toString(), key.toString(), step).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      do {
        line = r.readLine();
      } while (line != null && !line.startsWith("stopped ")); // skip the JVM's own warnings
      assertThat(line).isEqualTo("stopped " + step);
      p.destroyForcibly();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static List<String> log(Path repo, String path) throws Exception {
    try (Git git = Git.open(repo.toFile())) {
      List<String> out = new ArrayList<>();
      for (RevCommit c : git.log().addPath(path).call()) {
        out.add(c.getShortMessage());
      }
      return out;
    }
  }

  private static boolean clean(Path repo) throws Exception {
    try (Git git = Git.open(repo.toFile())) {
      return git.status().call().isClean();
    }
  }

  @Test
  void aWriteKilledAfterItsFileAndBeforeItsCommitIsCommittedOnTheNextOpenAndSurvivesAPull() throws Exception {
    Path bare = dir.resolve("remote.git");
    Git.init().setBare(true).setInitialBranch(GitStore.BRANCH).setDirectory(bare.toFile()).call().close();
    Path repo = dir.resolve("a");
    RecordKey other = new RecordKey("ns", "col", "other");
    try (GitStore a = GitStore.open(repo, 32, Clock.systemUTC())) {
      a.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v1"), Meta.EMPTY), Optional.empty());
      try (Git git = Git.open(repo.toFile())) {
        git.remoteAdd().setName("origin").setUri(new URIish(bare.toUri().toString())).call();
      }
      assertThat(GitRemote.push(a, "origin")).isInstanceOf(GitRemote.Pushed.class);
    }
    Path peer = dir.resolve("b");
    Git.cloneRepository().setURI(bare.toUri().toString()).setDirectory(peer.toFile()).call().close();
    try (GitStore b = GitStore.open(peer, 32, Clock.systemUTC())) {
      b.put(Record.draft(other, Kind.DOCUMENT, Body.Inline.text("from b"), Meta.EMPTY), Optional.empty());
      assertThat(GitRemote.push(b, "origin")).isInstanceOf(GitRemote.Pushed.class);
    }

    killWriterAt(repo, key, "before-commit");
    assertThat(clean(repo)).as("the killed write left its file uncommitted").isFalse();
    assertThat(Files.exists(repo.resolve(".git").resolve(GitStore.PENDING))).isTrue();

    try (GitStore reopened = GitStore.open(repo, 32, Clock.systemUTC())) {
      assertThat(clean(repo)).isTrue();
      assertThat(log(repo, "ns/col/rec.json")).hasSize(2).first().asString().startsWith("repair:");
      assertThat(reopened.get(key)).map(GitCrashRepairTest::text).contains("written by the killed process");
      GitRemote.PullReport pull = GitRemote.pull(reopened, "origin");
      assertThat(pull.conflicts()).isEmpty();
      assertThat(reopened.get(key)).map(GitCrashRepairTest::text).contains("written by the killed process");
      assertThat(reopened.get(other)).map(GitCrashRepairTest::text).contains("from b");
      assertThat(clean(repo)).isTrue();
    }
  }

  @Test
  void aWriteKilledBeforeItsRenameIsDiscardedOnTheNextOpenAndTheStoreStaysClean() throws Exception {
    Path repo = dir.resolve("a");
    Record v1;
    try (GitStore a = GitStore.open(repo, 32, Clock.systemUTC())) {
      v1 = ((Committed) a.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v1"), Meta.EMPTY),
          Optional.empty())).record();
    }
    killWriterAt(repo, key, "before-rename");
    try (GitStore reopened = GitStore.open(repo, 32, Clock.systemUTC())) {
      assertThat(reopened.get(key)).contains(v1);
      assertThat(Files.exists(repo.resolve(".git").resolve(GitStore.PENDING))).isFalse();
      assertThat(clean(repo)).as("the temp file is ignored").isTrue();
      assertThat(log(repo, "ns/col/rec.json")).containsExactly("put ns/col/rec");
      assertThat(reopened.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v2"), Meta.EMPTY),
          Optional.of(v1.revision()))).isInstanceOf(Committed.class);
    }
  }

  /**
   * A store opened before a sibling process died inside its write (a server next to a killed
   * {@code lethe store put}): its next write commits the dead one's record and proceeds, at either
   * step, and a store opened afterwards opens.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"before-commit", "index-locked"})
  void aStoreOpenBeforeASiblingWasKilledMidWriteCommitsItAndKeepsWriting(String step) throws Exception {
    Path repo = dir.resolve("a");
    RecordKey other = new RecordKey("ns", "col", "other");
    try (GitStore server = GitStore.open(repo, 32, Clock.systemUTC())) {
      server.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v1"), Meta.EMPTY), Optional.empty());
      killWriterAt(repo, key, step);
      assertThat(server.put(Record.draft(other, Kind.DOCUMENT, Body.Inline.text("after"), Meta.EMPTY),
          Optional.empty())).isInstanceOf(Committed.class);
      assertThat(clean(repo)).as("the killed write is committed, not left in the work tree").isTrue();
      assertThat(log(repo, "ns/col/rec.json")).hasSize(2).first().asString().startsWith("repair:");
      assertThat(log(repo, "ns/col/other.json")).containsExactly("put ns/col/other");
      assertThat(Files.exists(repo.resolve(".git").resolve(GitStore.PENDING))).isFalse();
    }
    killWriterAt(repo, key, step);
    try (GitStore reopened = GitStore.open(repo, 32, Clock.systemUTC())) {
      assertThat(clean(repo)).isTrue();
      assertThat(log(repo, "ns/col/rec.json")).hasSize(3).first().asString().startsWith("repair:");
      assertThat(reopened.get(key)).map(GitCrashRepairTest::text).contains("written by the killed process");
    }
  }
}
