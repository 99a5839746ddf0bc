package dev.lethe.store.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the purge log costs per collected tombstone on a file store (docs/benchmarks.md "Purge
 * log"): records edited {@code edits} times (so the log keeps that many ancestors), deleted and
 * collected; bytes of {@code ~ledger/purge-log.jsonl} per tombstone.
 */
class FsPurgeLogSizeTest {

  @TempDir Path dir;

  private double bytesPerTombstone(int edits, int records) throws Exception {
    MutableClock clock = MutableClock.at2026();
    Path root = dir.resolve("e" + edits);
    try (FsStore s = new FsStore(root, 32, clock, Durability.NO_FSYNC, WriteObserver.NONE)) {
      for (int i = 0; i < records; i++) {
        RecordKey k = new RecordKey("notes", "daily", String.format("note-%06d", i));
        Record r = ((Committed) s.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text("v0"), Meta.byAuthor("a")),
            Optional.empty())).record();
        for (int e = 1; e < edits; e++) {
          r = ((Committed) s.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text("v" + e), Meta.byAuthor("a")),
              Optional.of(r.revision()))).record();
        }
        s.delete(k, Optional.of(r.revision()));
      }
      clock.advance(Duration.ofDays(40));
      assertThat(Collect.run(s, KeyPrefix.all(), Duration.ofDays(30), clock, Progress.NONE).purged()).isEqualTo(records);
      return (double) Files.size(root.resolve(FsLedger.DIR).resolve("purge-log.jsonl")) / records;
    }
  }

  @Test
  void aCollectedTombstoneCostsAFewHundredBytesInThePurgeLog() throws Exception {
    double once = bytesPerTombstone(1, 1000);
    double five = bytesPerTombstone(5, 1000);
    double forty = bytesPerTombstone(40, 200);
    System.out.printf("purge log bytes per collected tombstone: 1 edit %.0f, 5 edits %.0f, 40 edits (cap 32) %.0f%n",
        once, five, forty);
    assertThat(once).isLessThan(200);
    assertThat(forty).isLessThan(32 * 75 + 200);
  }
}
