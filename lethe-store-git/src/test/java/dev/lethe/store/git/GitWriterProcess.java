package dev.lethe.store.git;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * A separate process for {@link GitConcurrentWritersTest}: opens the git store in {@code args[0]}
 * and makes {@code args[2]} writes as writer {@code args[1]}, alternating a key of its own and the
 * shared key {@code ns/col/shared} (read, then a put expecting that revision, retried on conflict).
 * Prints {@code acked KEY COUNTER} after each write the store acknowledged, then {@code done}.
 */
public final class GitWriterProcess {
  public static void main(String[] args) {
    String name = args[1];
    int writes = Integer.parseInt(args[2]);
    RecordKey shared = new RecordKey("ns", "col", "shared");
    try (GitStore store = GitStore.open(Path.of(args[0]), 32, Clock.systemUTC())) {
      for (int i = 0; i < writes; i++) {
        RecordKey key = i % 2 == 0 ? new RecordKey("ns", "col", name + "-" + i) : shared;
        while (true) {
          Optional<Record> current = store.get(key);
          Record draft = Record.draft(key, Kind.DOCUMENT, Body.Inline.text(name + " " + i), Meta.byAuthor(name));
          if (store.put(draft, current.map(Record::revision)) instanceof Committed c) {
            System.out.println("acked " + key + " " + c.record().revision().counter());
            System.out.flush();
            break;
          }
        }
      }
    }
    System.out.println("done");
  }
}
