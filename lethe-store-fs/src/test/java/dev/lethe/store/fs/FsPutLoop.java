package dev.lethe.store.fs;

import static org.awaitility.Awaitility.await;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.RevisionJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * A separate process for {@link FsConcurrencyTest}: waits for a start file, then reads the key
 * and puts over the revision it read, {@code attempts} times, printing {@code commit <base>} for
 * each put that committed.
 *
 * <p>Arguments: root, key, attempts, start file, writer name. Creates {@code <start file>.<writer
 * name>.ready} once it is ready to race.
 */
public final class FsPutLoop {
  public static void main(String[] args) throws Exception {
    FsStore store = new FsStore(Path.of(args[0]), 32, Clock.systemUTC());
    RecordKey key = RecordKey.parse(args[1]);
    int attempts = Integer.parseInt(args[2]);
    Path go = Path.of(args[3]);
    store.get(key).orElseThrow(); // warm up before announcing readiness
    Files.writeString(Path.of(args[3] + "." + args[4] + ".ready"), "ready");
    await("the start file").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(5)).until(() -> Files.exists(go));
    for (int i = 0; i < attempts; i++) {
      Record current = store.get(key).orElseThrow();
      PutResult r = store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text(args[4] + " " + i),
          Meta.byAuthor(args[4])), Optional.of(current.revision()));
      if (r instanceof Committed) {
        System.out.println("commit " + RevisionJson.format(current.revision()));
      }
    }
    System.out.flush();
  }
}
