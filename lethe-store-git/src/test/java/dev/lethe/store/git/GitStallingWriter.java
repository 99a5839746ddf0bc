package dev.lethe.store.git;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.fs.WriteObserver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A separate process for {@link GitCrashRepairTest}: edits a record of a git store and stops at
 * one step of the write, announcing {@code stopped <step>} and waiting to be killed. Arguments:
 * store directory, key, step ({@code before-rename}: the temp file is durable, the record file
 * is the old one; {@code before-commit}: the record file is the new one, nothing is committed;
 * {@code index-locked}: as before-commit, and the commit holds {@code .git/index.lock}).
 */
public final class GitStallingWriter {
  public static void main(String[] args) throws Exception {
    String step = args[2];
    CountDownLatch never = new CountDownLatch(1);
    Runnable stop = () -> {
      System.out.println("stopped " + step);
      System.out.flush();
      try {
        never.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    WriteObserver fs = step.equals("before-rename") ? (key, temp) -> stop.run() : WriteObserver.NONE;
    GitStore.CommitObserver git = switch (step) {
      case "before-commit" -> keys -> stop.run();
      case "index-locked" -> new GitStore.CommitObserver() {
        @Override
        public void beforeCommit(java.util.Collection<RecordKey> keys) { }

        @Override
        public void indexLocked() {
          stop.run();
        }
      };
      default -> GitStore.CommitObserver.NONE;
    };
    GitStore store = GitStore.open(Path.of(args[0]), 32, Clock.systemUTC(), fs, git);
    RecordKey key = RecordKey.parse(args[1]);
    Record current = store.get(key).orElseThrow();
    store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("written by the killed process"), Meta.byAuthor("bob")),
        Optional.of(current.revision()));
  }
}
