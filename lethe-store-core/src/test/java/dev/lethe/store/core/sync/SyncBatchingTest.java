package dev.lethe.store.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.memory.MemoryStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Sync writes copies and fast-forwards in batches ({@link Store#putRawBatch},
 * docs/design/0115-batched-raw-writes.md), never one {@code putRaw} per key on the walk, and an
 * item that lost a race while it was held is re-planned from fresh reads exactly as before: a
 * delete that landed meanwhile is never overwritten.
 */
class SyncBatchingTest {

  /** Counts {@code putRaw} and {@code putRawBatch} calls; runs {@code beforeBatch} before each batch. */
  private static Store counting(Store store, AtomicInteger singles, AtomicInteger batches,
      Consumer<List<RawPut>> beforeBatch) {
    return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, m, args) -> {
      if (m.getName().equals("putRaw")) {
        singles.incrementAndGet();
      }
      if (m.getName().equals("putRawBatch")) {
        batches.incrementAndGet();
        @SuppressWarnings("unchecked")
        List<RawPut> items = (List<RawPut>) args[0];
        beforeBatch.accept(items);
      }
      try {
        return m.invoke(store, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }

  private static Record put(Store s, String id, String text, Optional<Record> over) {
    return ((Committed) s.put(Record.draft(new RecordKey("n", "c", id), Kind.DOCUMENT, Body.Inline.text(text),
        Meta.EMPTY), over.map(Record::revision))).record();
  }

  @Test
  void aBatchThatFailsOnItsWriterFailsTheRunAndLeavesNoWriterBehind() {
    MemoryStore a = new MemoryStore(32, Clock.systemUTC());
    MemoryStore b = new MemoryStore(32, Clock.systemUTC());
    int n = Sync.BATCH_SIZE * 3;
    for (int i = 0; i < n; i++) {
      put(a, String.format("k%05d", i), "v " + i, Optional.empty());
    }
    AtomicInteger batches = new AtomicInteger();
    Store failing = counting(b, new AtomicInteger(), batches, items -> {
      if (batches.get() == 2) {
        throw new java.io.UncheckedIOException(new java.io.IOException("disk full"));
      }
    });
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> Sync.run(a, failing, KeyPrefix.namespace("n"), SyncOptions.DEFAULTS))
        .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("disk full");
    int after = batches.get();
    assertThat(b.listRaw(KeyPrefix.all())).hasSize(Sync.BATCH_SIZE); // the first batch only
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
        Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("lethe-sync-writer")));
    assertThat(batches.get()).as("no batch written after the run returned").isEqualTo(after);
  }

  @Test
  void bigRecordsAreWrittenBeforeTheyPileUpPastTheByteBudget() {
    MemoryStore a = new MemoryStore(32, Clock.systemUTC());
    MemoryStore b = new MemoryStore(32, Clock.systemUTC());
    int n = 24;
    String mib = "x".repeat(1024 * 1024);
    for (int i = 0; i < n; i++) {
      put(a, String.format("k%03d", i), i + mib, Optional.empty());
    }
    long oneRecord = Sync.heldSize(a.listRaw(KeyPrefix.all()).get(0));
    List<Long> held = new java.util.ArrayList<>();
    AtomicInteger singles = new AtomicInteger();
    AtomicInteger batches = new AtomicInteger();
    SyncReport r = Sync.run(a, counting(b, singles, batches,
        items -> held.add(items.stream().mapToLong(item -> Sync.heldSize(item.record())).sum())),
        KeyPrefix.namespace("n"), SyncOptions.DEFAULTS);
    assertThat(r.copied()).isEqualTo(n);
    assertThat(held).as("bytes held per batch").hasSizeGreaterThan(2)
        .allSatisfy(bytes -> assertThat(bytes).isLessThan(Sync.BATCH_BYTES + oneRecord));
    assertThat(b.listRaw(KeyPrefix.all())).isEqualTo(a.listRaw(KeyPrefix.all()));
  }

  @Test
  void copiesAndFastForwardsTravelInBatchesNotOnePutPerKey() {
    MemoryStore a = new MemoryStore(32, Clock.systemUTC());
    MemoryStore b = new MemoryStore(32, Clock.systemUTC());
    int n = Sync.BATCH_SIZE * 2 + 77;
    for (int i = 0; i < n; i++) {
      String id = String.format("k%05d", i);
      Record v1 = put(a, id, "v1 " + i, Optional.empty());
      if (i % 2 == 0) {
        b.putRaw(v1, Optional.empty());
        put(a, id, "v2 " + i, Optional.of(v1)); // a fast-forward of B
      }
    }
    AtomicInteger singles = new AtomicInteger();
    AtomicInteger batches = new AtomicInteger();
    SyncReport r = Sync.run(a, counting(b, singles, batches, items -> { }), KeyPrefix.namespace("n"),
        SyncOptions.DEFAULTS);
    assertThat(r.conflicts()).isEmpty();
    assertThat(r.copied() + r.fastForwarded()).isEqualTo(n);
    assertThat(r.fastForwarded()).isEqualTo((n + 1) / 2);
    assertThat(singles.get()).as("single raw puts").isZero();
    assertThat(batches.get()).as("batches of at most %d", Sync.BATCH_SIZE).isEqualTo(3);
    assertThat(b.listRaw(KeyPrefix.all())).isEqualTo(a.listRaw(KeyPrefix.all()));
  }

  @Test
  void aDeleteThatLandsWhileTheWriteIsHeldIsReplannedNeverOverwritten() {
    MemoryStore a = new MemoryStore(32, Clock.systemUTC());
    MemoryStore b = new MemoryStore(32, Clock.systemUTC());
    Record v1 = put(a, "doc", "v1", Optional.empty());
    b.putRaw(v1, Optional.empty());
    Record v2 = put(a, "doc", "v2", Optional.of(v1)); // B is to be fast-forwarded to v2
    Record fresh = put(a, "fresh", "new", Optional.empty()); // and given a copy
    AtomicInteger singles = new AtomicInteger();
    AtomicInteger batches = new AtomicInteger();
    // the first batch meets a delete of "doc" on B that landed after sync planned the fast-forward
    Store racingB = counting(b, singles, batches, items -> {
      if (batches.get() == 1) {
        b.delete(v1.key(), Optional.of(v1.revision()));
      }
    });
    SyncReport r = Sync.run(a, racingB, KeyPrefix.namespace("n"), SyncOptions.DEFAULTS);
    Record tombstone = b.getRaw(v1.key()).orElseThrow();
    assertThat(tombstone.isTombstone()).as("the delete is still there").isTrue();
    assertThat(r.conflicts()).extracting(SyncConflict::key).containsExactly(v1.key());
    assertThat(r.fastForwarded()).isZero();
    assertThat(r.copied()).isEqualTo(1);
    assertThat(b.getRaw(fresh.key())).contains(fresh);
    assertThat(a.getRaw(v2.key())).contains(v2);
  }

  @Test
  void aBatchRefusedOverOneCorruptRecordStepsOverThatKeyOnly() {
    MemoryStore a = new MemoryStore(32, Clock.systemUTC());
    MemoryStore b = new MemoryStore(32, Clock.systemUTC());
    for (int i = 0; i < 10; i++) {
      put(a, "k" + i, "v" + i, Optional.empty());
    }
    RecordKey bad = new RecordKey("n", "c", "k4");
    // B's stored k4 is unreadable: any write of it (batched or not) is refused, as a store refuses
    // to write over a corrupt record
    Store corruptAtK4 = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
        (proxy, m, args) -> {
          boolean touchesBad = (m.getName().equals("putRaw") && ((Record) args[0]).key().equals(bad))
              || (m.getName().equals("putRawBatch")
                  && ((List<?>) args[0]).stream().anyMatch(i -> ((RawPut) i).record().key().equals(bad)));
          if (touchesBad) {
            throw new dev.lethe.store.core.format.CorruptRecordException(bad, "test", "damaged");
          }
          try {
            return m.invoke(b, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    SyncReport r = Sync.run(a, corruptAtK4, KeyPrefix.namespace("n"), SyncOptions.DEFAULTS);
    assertThat(r.corrupt()).extracting(SyncCorrupt::key).containsExactly(bad);
    assertThat(r.copied()).isEqualTo(9);
    assertThat(b.getRaw(bad)).isEmpty();
    assertThat(b.listRaw(KeyPrefix.all())).hasSize(9);
  }
}
