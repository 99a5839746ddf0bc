package dev.lethe.bench.store;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.tombstone.Tombstones;
import dev.lethe.store.fs.Durability;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.fs.WriteObserver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Fills an fs store for a benchmark's (untimed) setup. */
final class Fill {

  private Fill() {}

  /** Opens an fs store at cap 32. */
  static FsStore open(Path dir, Durability d) {
    return new FsStore(dir, 32, Clock.systemUTC(), d, WriteObserver.NONE);
  }

  /**
   * Writes {@code n} records into {@code dir} over 100 collections, every {@code tombstoneEvery}-th
   * one deleted 30 days ago (1 = all tombstones).
   */
  static void records(Path dir, int n, int tombstoneEvery) {
    FsStore filler = open(dir, Durability.NO_FSYNC);
    long old = System.currentTimeMillis() - Duration.ofDays(30).toMillis();
    for (int i = 0; i < n; i++) {
      RecordKey key = new RecordKey("bench", "c" + (i % 100), "r" + i);
      Body body = Body.Inline.text("record " + i + " " + "x".repeat(100));
      Meta meta = new Meta("bench", null, old, old, null);
      Revision rev = RevisionHash.revision(1, Kind.DOCUMENT, body, meta, List.of());
      Record r = new Record(key, Kind.DOCUMENT, rev, null, List.of(), body, meta, null, null, List.of());
      filler.putRaw(i % tombstoneEvery == 0 ? Tombstones.of(r, Optional.empty(), old, 32) : r,
          Optional.empty());
    }
  }
}
