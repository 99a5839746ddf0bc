package dev.lethe.cli.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.git.GitStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code lethe store …} on a {@code git:} store, run in-process through picocli. */
class StoreCliGitTest {

  record Run(int code, String out, String err) {
    List<String> errLines() {
      return err.isEmpty() ? List.of() : List.of(err.split("\n"));
    }
  }

  @TempDir Path dir;
  private final RecordKey key = new RecordKey("ns", "col", "rec");

  private Run run(String... args) {
    CommandLine cmd = LetheCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private Run onKey(String store, String sub, String... more) {
    List<String> a = new ArrayList<>(List.of("store", sub, "--store", store,
        "--namespace", "ns", "--collection", "col", "--id", "rec"));
    a.addAll(List.of(more));
    return run(a.toArray(String[]::new));
  }

  private Path body(String text) throws Exception {
    Path f = Files.createTempFile(dir, "body", ".txt");
    Files.writeString(f, text);
    return f;
  }

  private static List<RevCommit> log(Path repo, String path) throws Exception {
    try (Git git = Git.open(repo.toFile())) {
      List<RevCommit> out = new ArrayList<>();
      git.log().addPath(path).call().forEach(out::add);
      return out;
    }
  }

  private static List<String> tree(Path d) throws Exception {
    try (Stream<Path> s = Files.walk(d)) {
      return s.map(p -> d.relativize(p).toString()).sorted().toList();
    }
  }

  @Test
  void putGetDeleteOnANewDirectoryMakeARepositoryWithOneCommitPerWriteAndTheDeleteInTheFileLog() throws Exception {
    Path repo = dir.resolve("notes");
    String store = "git:" + repo;
    Run put = onKey(store, "put", "--body-file", body("hello").toString());
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.out()).startsWith("committed: ns/col/rec");
    Run get = onKey(store, "get");
    assertThat(get.code()).isZero();
    assertThat(((Body.Inline) new RecordJson().parse(get.out()).body()).text()).isEqualTo("hello");
    Run delete = onKey(store, "delete");
    assertThat(delete.code()).as(delete.err()).isZero();
    assertThat(onKey(store, "get").code()).isEqualTo(1);
    assertThat(onKey(store, "get", "--raw").code()).isZero();

    List<RevCommit> history = log(repo, "ns/col/rec.json");
    assertThat(history).extracting(RevCommit::getShortMessage).containsExactly("delete ns/col/rec", "put ns/col/rec");
    assertThat(history.get(1).getAuthorIdent().getName()).isEqualTo(StoreSubcommand.CLI_AUTHOR);
    assertThat(history.get(1).getCommitterIdent().getName()).isEqualTo(GitStore.LETHE);
    try (Git git = Git.open(repo.toFile())) {
      assertThat(git.status().call().isClean()).isTrue();
      assertThat(git.getRepository().getBranch()).isEqualTo("main");
    }
  }

  @Test
  void syncFromFileToGitAndBackCarriesTheDeleteAndNothingResurrects() throws Exception {
    Path file = dir.resolve("file");
    Path repo = dir.resolve("repo");
    Run put = onKey("file:" + file, "put", "--body-file", body("v1").toString());
    assertThat(put.code()).as(put.err()).isZero();
    Run there = run("store", "sync", "--store", "file:" + file, "--peer", "git:" + repo);
    assertThat(there.code()).as(there.err()).isZero();
    assertThat(onKey("git:" + repo, "get").code()).isZero();

    assertThat(onKey("git:" + repo, "delete").code()).isZero();
    Run back = run("store", "sync", "--store", "git:" + repo, "--peer", "file:" + file);
    assertThat(back.code()).as(back.err()).isZero();
    assertThat(back.out()).contains("converged: yes");
    assertThat(new FsStore(file, 32, Clock.systemUTC()).getRaw(key).orElseThrow().isTombstone()).isTrue();
    assertThat(onKey("file:" + file, "get").code()).isEqualTo(1);
    Run again = run("store", "sync", "--store", "file:" + file, "--peer", "git:" + repo);
    assertThat(again.code()).isZero();
    assertThat(onKey("git:" + repo, "get").code()).isEqualTo(1);
    assertThat(log(repo, "ns/col/rec.json")).hasSize(2);
  }

  @Test
  void aMalformedURIOrADirectoryThatIsNotAGitWorkTreeIsExit2WithOneLineAndNothingIsWritten() throws Exception {
    Path project = Files.createDirectories(dir.resolve("project"));
    Files.writeString(project.resolve("README"), "not a store");
    Path bare = dir.resolve("bare.git");
    Git.init().setBare(true).setDirectory(bare.toFile()).call().close();
    List<String> bareBefore = tree(bare);
    Path emptyDotGit = dir.resolve("emptygit");
    Files.createDirectories(emptyDotGit.resolve(".git"));
    Path garbageDotGit = dir.resolve("garbagegit");
    Files.createDirectories(garbageDotGit.resolve(".git"));
    Files.writeString(garbageDotGit.resolve(".git").resolve("HEAD"), "garbage\n");
    for (String uri : List.of("git:", "git://", "git:" + project, "git:" + bare, "git:" + emptyDotGit,
        "git:" + garbageDotGit)) {
      for (Run r : List.of(onKey(uri, "put", "--body-file", body("x").toString()), onKey(uri, "get"),
          run("store", "list", "--store", uri), run("store", "sync", "--store", "file:" + dir.resolve("f"), "--peer", uri))) {
        assertThat(r.code()).as(uri + ": " + r.err()).isEqualTo(2);
        assertThat(r.errLines()).as(uri).singleElement().asString().contains(uri);
      }
    }
    assertThat(tree(project)).containsExactly("", "README");
    assertThat(tree(bare)).isEqualTo(bareBefore);
    assertThat(tree(emptyDotGit)).containsExactly("", ".git");
    assertThat(tree(garbageDotGit)).containsExactly("", ".git", ".git/HEAD");
    assertThat(run("store", "get", "--store", "git:" + dir.resolve("missing"), "--namespace", "ns",
        "--collection", "col", "--id", "rec").code()).isEqualTo(2);
    assertThat(dir.resolve("missing")).doesNotExist();
  }

  /** A user's {@code git merge} that stopped on a conflict: lethe writes nothing until it is finished. */
  @Test
  void aWriteOrPullDuringAnUnfinishedUserMergeIsRefusedExit1WithOneLineAndWritesNothing() throws Exception {
    Path repo = dir.resolve("repo");
    String store = "git:" + repo;
    assertThat(onKey(store, "put", "--body-file", body("v1").toString()).code()).isZero();
    Path bare = dir.resolve("remote.git");
    Git.init().setBare(true).setInitialBranch(GitStore.BRANCH).setDirectory(bare.toFile()).call().close();
    org.eclipse.jgit.lib.ObjectId head;
    try (Git git = Git.open(repo.toFile())) {
      git.remoteAdd().setName("origin").setUri(new org.eclipse.jgit.transport.URIish(bare.toUri().toString())).call();
      git.checkout().setCreateBranch(true).setName("side").call();
      Files.writeString(repo.resolve("ns/col/rec.json"), "side\n");
      git.add().addFilepattern("ns/col/rec.json").call();
      git.commit().setMessage("side").call();
      git.checkout().setName(GitStore.BRANCH).call();
      Files.writeString(repo.resolve("ns/col/rec.json"), "main\n");
      git.add().addFilepattern("ns/col/rec.json").call();
      git.commit().setMessage("main").call();
      assertThat(git.merge().include(git.getRepository().resolve("side")).call().getMergeStatus())
          .isEqualTo(org.eclipse.jgit.api.MergeResult.MergeStatus.CONFLICTING);
      head = git.getRepository().resolve("HEAD");
    }
    for (Run r : List.of(
        run("store", "put", "--store", store, "--namespace", "ns", "--collection", "col", "--id", "other",
            "--body-file", body("x").toString()),
        run("store", "put", "--store", store, "--namespace", "ns", "--collection", "col", "--id", "another",
            "--body-file", body("x").toString()),
        run("store", "pull", "--store", store))) {
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.errLines()).singleElement().asString().contains(repo.toString())
          .contains("merge is not finished").contains("ns/col/rec.json");
    }
    assertThat(repo.resolve("ns/col/other.json")).doesNotExist();
    assertThat(repo.resolve("ns/col/another.json")).doesNotExist();
    assertThat(repo.resolve(".git").resolve("lethe-pending")).doesNotExist();
    try (Git git = Git.open(repo.toFile())) {
      assertThat(git.getRepository().resolve("HEAD")).isEqualTo(head);
      git.reset().setMode(org.eclipse.jgit.api.ResetCommand.ResetType.HARD).call(); // the merge given up
    }
    assertThat(run("store", "put", "--store", store, "--namespace", "ns", "--collection", "col", "--id", "other",
        "--body-file", body("x").toString()).code()).isZero();
  }

  @Test
  void aNamespaceStartingWithDotGitIsRefusedExit2() throws Exception {
    Path repo = dir.resolve("repo");
    Run r = run("store", "put", "--store", "git:" + repo, "--namespace", ".git", "--collection", "hooks",
        "--id", "pre-commit", "--body-file", body("x").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.errLines()).singleElement().asString().contains("reserved by git");
    assertThat(repo.resolve(".git").resolve("hooks").resolve("pre-commit.json")).doesNotExist();
  }

  @Test
  void aRecordEditedByHandInTheWorkTreeIsReportedByKeyExit1() throws Exception {
    Path repo = dir.resolve("repo");
    String store = "git:" + repo;
    Path file;
    try (GitStore g = GitStore.open(repo, 32, Clock.systemUTC())) {
      g.put(dev.lethe.store.core.Record.draft(key, dev.lethe.store.core.Kind.DOCUMENT, Body.Inline.text("v1"),
          dev.lethe.store.core.Meta.byAuthor("alice")), java.util.Optional.empty());
      file = g.pathOf(key);
    }
    String json = Files.readString(file);
    assertThat(json).contains("\"text\" : \"v1\"");
    Files.writeString(file, json.replace("\"text\" : \"v1\"", "\"text\" : \"v2\""));
    for (Run r : List.of(onKey(store, "get"), run("store", "list", "--store", store), onKey(store, "delete"))) {
      assertThat(r.code()).isEqualTo(1);
      assertThat(r.errLines()).singleElement().asString().contains("Corrupt record ns/col/rec").contains(file.toString());
    }
    Files.writeString(file, "{ not json");
    Run get = onKey(store, "get");
    assertThat(get.code()).isEqualTo(1);
    assertThat(get.errLines()).singleElement().asString().contains("ns/col/rec");
  }

  @Test
  void pullPrintsOneConflictLinePerKeyExits3AndPushIsRefusedNamingTheKeyUntilAWriteResolvesIt() throws Exception {
    Path bare = dir.resolve("remote.git");
    Git.init().setBare(true).setInitialBranch(GitStore.BRANCH).setDirectory(bare.toFile()).call().close();
    String a = "git:" + dir.resolve("a");
    String b = "git:" + dir.resolve("b");
    assertThat(onKey(a, "put", "--body-file", body("v1").toString()).code()).isZero();
    try (Git git = Git.open(dir.resolve("a").toFile())) {
      git.remoteAdd().setName("hub").setUri(new org.eclipse.jgit.transport.URIish(bare.toUri().toString())).call();
    }
    Run noRemote = run("store", "push", "--store", a);
    assertThat(noRemote.code()).isEqualTo(2);
    assertThat(noRemote.errLines()).singleElement().asString().contains("no remote named 'origin'");
    assertThat(run("store", "push", "--store", a, "--remote", "hub").code()).isZero();
    Git.cloneRepository().setURI(bare.toUri().toString()).setDirectory(dir.resolve("b").toFile()).call().close();

    assertThat(onKey(a, "delete").code()).isZero();
    assertThat(run("store", "push", "--store", a, "--remote", "hub").out()).startsWith("pushed: main -> hub");
    assertThat(onKey(b, "put", "--body-file", body("v2").toString(), "--expected",
        dev.lethe.store.core.format.RevisionJson.format(
            new RecordJson().parse(onKey(b, "get").out()).revision())).code()).isZero();
    Run pull = run("store", "pull", "--store", b);
    assertThat(pull.code()).as(pull.err()).isEqualTo(3);
    assertThat(pull.out()).contains("pulled: merged").contains("conflicts: 1");
    assertThat(pull.errLines()).singleElement().asString().startsWith("conflict: ns/col/rec: ");
    Run push = run("store", "push", "--store", b);
    assertThat(push.code()).isEqualTo(3);
    assertThat(push.errLines()).first().isEqualTo("conflict: ns/col/rec");
    assertThat(onKey(b, "delete").code()).isZero();
    assertThat(run("store", "push", "--store", b).code()).isZero();

    Run onFile = run("store", "pull", "--store", "file:" + dir.resolve("f"));
    assertThat(onFile.code()).isEqualTo(2);
    assertThat(onFile.errLines()).singleElement().asString().contains("not a git: store");
  }
}
