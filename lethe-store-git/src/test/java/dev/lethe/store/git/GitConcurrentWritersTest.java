package dev.lethe.store.git;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.RecordKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes ({@link GitWriterProcess}, real child JVMs) write one git store at once: every
 * acknowledged write is in HEAD, one commit each, the shared key's counter counts every
 * acknowledged edit of it, and the work tree is clean.
 */
class GitConcurrentWritersTest {

  @TempDir Path dir;

  private static Process writer(Path repo, String name, int writes) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), GitWriterProcess.class.getName(),
        repo.toString(), name, Integer.toString(writes)).redirectErrorStream(true).start();
  }

  private static List<String> acked(Process p) throws Exception {
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        out.add(line);
      }
    }
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join("\n", out)).isZero();
    assertThat(out).as(String.join("\n", out)).contains("done");
    return out.stream().filter(l -> l.startsWith("acked ")).toList();
  }

  @Test
  void twoProcessesWritingAtOnceLoseNoAcknowledgedWrite() throws Exception {
    Path repo = dir.resolve("store");
    try (GitStore s = GitStore.open(repo, 32, Clock.systemUTC())) {
      s.repository(); // created before the writers race
    }
    int writes = 24;
    Process a = writer(repo, "a", writes);
    Process b = writer(repo, "b", writes);
    List<String> all = new ArrayList<>(acked(a));
    all.addAll(acked(b));
    assertThat(all).hasSize(2 * writes);

    Set<String> paths = new HashSet<>();
    int commits = 0;
    try (Git git = Git.open(repo.toFile())) {
      assertThat(git.status().call().isClean()).isTrue();
      for (RevCommit c : git.log().call()) {
        commits++;
      }
      try (TreeWalk tw = new TreeWalk(git.getRepository())) {
        tw.addTree(git.getRepository().parseCommit(git.getRepository().resolve("HEAD")).getTree());
        tw.setRecursive(true);
        while (tw.next()) {
          paths.add(tw.getPathString());
        }
      }
    }
    assertThat(commits).as("one commit per acknowledged write, plus the store's first").isEqualTo(2 * writes + 1);
    for (String line : all) {
      RecordKey key = RecordKey.parse(line.split(" ")[1]);
      assertThat(paths).contains(GitStore.treePath(key));
    }
    long sharedEdits = all.stream().filter(l -> l.contains("ns/col/shared ")).count();
    try (GitStore s = GitStore.open(repo, 32, Clock.systemUTC())) {
      assertThat(s.get(new RecordKey("ns", "col", "shared")).orElseThrow().revision().counter())
          .as("no acknowledged edit of the shared key lost").isEqualTo(sharedEdits);
    }
  }
}
