package dev.lethe.store.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A writer killed (SIGKILL) between its temp write and its rename. */
class FsCrashSafetyTest {

  @TempDir Path root;

  @Test
  void aProcessKilledBetweenTempWriteAndRenameLeavesTheOldRecordAndNoVisibleGarbage() throws Exception {
    RecordKey key = new RecordKey("ns", "col", "rec");
    FsStore store = new FsStore(root, 32, Clock.systemUTC());
    Record old = ((Committed) store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("old"),
        Meta.EMPTY), Optional.empty())).record();

    Process p = new ProcessBuilder(FsConcurrencyTest.javaBin(), "-cp",
        System.getProperty("java.class.path"), FsStallingWriter.class.getName(), root.toString(),
        key.toString()).redirectErrorStream(true).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(r.readLine()).startsWith("temp-written ");
      p.destroyForcibly();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    try (Stream<Path> files = Files.list(root.resolve("ns/col"))) {
      assertThat(files.map(f -> f.getFileName().toString())).anyMatch(n -> n.endsWith(".tmp"));
    }
    FsStore reopened = new FsStore(root, 32, Clock.systemUTC());
    assertThat(reopened.get(key)).contains(old);
    assertThat(reopened.listRaw(KeyPrefix.all())).containsExactly(old);
    // The dead writer's lock died with it: the next conditional write goes through.
    assertThat(reopened.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("new"), Meta.EMPTY),
        Optional.of(old.revision()))).isInstanceOf(Committed.class);
  }
}
