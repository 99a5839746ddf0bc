package dev.lethe.store.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncConflict;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sync into a {@code file:} store of keys it cannot hold (namespace {@code _blobs}, ids over 229
 * characters), which a database-backed store accepts: each is reported and stepped over, and every
 * other key is synced, whether the refused key falls in a batch or is retried alone.
 */
class FsSyncRefusedKeyTest {

  @TempDir Path dir;

  private static void put(MemoryStore s, RecordKey k) {
    s.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text("v " + k.id()), Meta.EMPTY), Optional.empty());
  }

  @Test
  void keysAFileStoreCannotHoldAreReportedAndEveryOtherKeyIsSynced() {
    MemoryStore server = new MemoryStore(32, MutableClock.at2026());
    FsStore laptop = new FsStore(dir, 32, MutableClock.at2026());
    RecordKey longId = new RecordKey("n", "c", "i".repeat(240));
    RecordKey blobsNs = new RecordKey("_blobs", "c", "x");
    List<RecordKey> holdable = new ArrayList<>();
    for (String id : List.of("a", "b", "zz")) {
      holdable.add(new RecordKey("n", "c", id));
    }
    for (RecordKey k : holdable) {
      put(server, k);
    }
    put(server, longId);
    put(server, blobsNs);

    SyncReport report = Sync.run(laptop, server, KeyPrefix.all(), SyncOptions.DEFAULTS);

    assertThat(report.copied()).isEqualTo(3);
    assertThat(report.converged()).isFalse();
    assertThat(report.conflicts()).extracting(SyncConflict::key).containsExactlyInAnyOrder(longId, blobsNs);
    assertThat(report.conflicts()).allSatisfy(c -> assertThat(c.reason()).startsWith(Sync.REFUSED));
    assertThat(laptop.listRaw(KeyPrefix.all())).extracting(Record::key).containsExactlyElementsOf(holdable);
    assertThat(server.listRaw(KeyPrefix.all())).hasSize(5);
  }

  /**
   * Seeded oracle: random keys, some a {@code file:} store cannot hold, in batches large and small;
   * after sync the laptop holds exactly the holdable keys with the server's records, and the report
   * names exactly the others. Replay with {@code -Dlethe.test.seed=N}.
   */
  @Test
  void randomMixesOfHoldableAndRefusedKeysSyncEveryHoldableOne() {
    long seed = Long.getLong("lethe.test.seed", new Random().nextLong());
    System.out.println("FsSyncRefusedKeyTest seed " + seed + " (replay with -Dlethe.test.seed=" + seed + ")");
    Random random = new Random(seed);
    MemoryStore server = new MemoryStore(32, MutableClock.at2026());
    FsStore laptop = new FsStore(dir.resolve("r"), 32, MutableClock.at2026());
    List<RecordKey> refused = new ArrayList<>();
    int n = 200 + random.nextInt(1200); // more than one batch of 500 in most runs
    for (int i = 0; i < n; i++) {
      int roll = random.nextInt(20);
      String id = String.format("k%05d", i);
      RecordKey k = roll == 0 ? new RecordKey("n", "c", id + "x".repeat(230 + random.nextInt(20)))
          : roll == 1 ? new RecordKey("_blobs", "c", id) : new RecordKey("n", "c", id);
      put(server, k);
      if (roll <= 1) {
        refused.add(k);
      }
    }
    SyncReport report = Sync.run(laptop, server, KeyPrefix.all(), SyncOptions.DEFAULTS);
    assertThat(report.conflicts()).as("seed %d", seed).extracting(SyncConflict::key)
        .containsExactlyInAnyOrderElementsOf(refused);
    List<Record> expected = server.listRaw(KeyPrefix.all()).stream()
        .filter(r -> !refused.contains(r.key())).toList();
    assertThat(laptop.listRaw(KeyPrefix.all())).as("seed %d", seed).isEqualTo(expected);
    assertThat(report.copied()).as("seed %d", seed).isEqualTo(expected.size());
  }
}
