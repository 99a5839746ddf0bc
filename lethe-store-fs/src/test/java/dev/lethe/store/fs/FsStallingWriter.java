package dev.lethe.store.fs;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * A separate process for {@link FsCrashSafetyTest}: edits a record and stalls after the temp
 * file is durable, before the rename, announcing {@code temp-written <path>} so the test can kill
 * it there. Arguments: root, key.
 */
public final class FsStallingWriter {
  public static void main(String[] args) throws Exception {
    WriteObserver stall = (key, temp) -> {
      System.out.println("temp-written " + temp);
      System.out.flush();
      try {
        Thread.sleep(120_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    FsStore store = new FsStore(Path.of(args[0]), 32, Clock.systemUTC(), stall);
    RecordKey key = RecordKey.parse(args[1]);
    Record current = store.get(key).orElseThrow();
    store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("never renamed"), Meta.EMPTY),
        Optional.of(current.revision()));
  }
}
