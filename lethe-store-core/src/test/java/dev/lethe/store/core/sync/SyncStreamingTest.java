package dev.lethe.store.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.memory.MemoryStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Sync walks both sides page by page (docs/design/0107-streaming-sync.md): it never asks a store
 * for a whole listing, holds at most one page per side, and pairs keys correctly whatever their
 * interleaving across page boundaries.
 */
class SyncStreamingTest {

  /** Wraps {@code store} so a whole-namespace listing fails the test and raw pages are counted. */
  private static Store pagedOnly(Store store, AtomicInteger pages, List<Integer> sizes) {
    return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, m, args) -> {
      if (m.getName().equals("listRaw") || m.getName().equals("list")) {
        throw new AssertionError("sync loaded a whole listing: " + m.getName());
      }
      try {
        Object result = m.invoke(store, args);
        if (m.getName().equals("listRawPage")) {
          pages.incrementAndGet();
          sizes.add(((Page) result).records().size());
        }
        return result;
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }

  private static void put(Store s, String id, String text) {
    assertThat(s.put(Record.draft(new RecordKey("n", "c", id), Kind.DOCUMENT, Body.Inline.text(text), Meta.EMPTY),
        Optional.empty())).isInstanceOf(Committed.class);
  }

  @Test
  void interleavedKeysOnBothSidesAcrossManyPagesAllConverge() {
    MemoryStore a = new MemoryStore(32, Clock.systemUTC());
    MemoryStore b = new MemoryStore(32, Clock.systemUTC());
    int n = Sync.PAGE_SIZE * 2 + 357;
    for (int i = 0; i < n; i++) {
      String id = String.format("k%05d", i);
      switch (i % 3) {
        case 0 -> put(a, id, "a" + i);
        case 1 -> put(b, id, "b" + i);
        default -> {
          put(a, id, "same" + i);
          put(b, id, "same" + i);
        }
      }
    }
    // a deleted key on A that B still holds live travels as a tombstone
    a.delete(new RecordKey("n", "c", "k00002"), Optional.empty());
    AtomicInteger pagesA = new AtomicInteger();
    AtomicInteger pagesB = new AtomicInteger();
    List<Integer> sizes = new ArrayList<>();
    SyncReport r = Sync.run(pagedOnly(a, pagesA, sizes), pagedOnly(b, pagesB, sizes), KeyPrefix.namespace("n"),
        SyncOptions.DEFAULTS);
    long oneSided = java.util.stream.IntStream.range(0, n).filter(i -> i % 3 != 2).count();
    assertThat(r.conflicts()).isEmpty();
    assertThat(r.copied()).isEqualTo(oneSided);
    assertThat(r.fastForwarded()).as("B's k00002 is overwritten by A's tombstone").isEqualTo(1);
    assertThat(b.getRaw(new RecordKey("n", "c", "k00002")).orElseThrow().isTombstone()).isTrue();
    assertThat(pagesA.get()).isBetween(2, 4);
    assertThat(pagesB.get()).isBetween(2, 4);
    assertThat(sizes).allMatch(s -> s <= Sync.PAGE_SIZE);
    assertThat(a.listRaw(KeyPrefix.all())).hasSize(n);
    assertThat(b.listRaw(KeyPrefix.all())).hasSize(n);
    for (int i = 0; i < n; i++) {
      RecordKey k = new RecordKey("n", "c", String.format("k%05d", i));
      assertThat(a.getRaw(k).orElseThrow().revision()).as(k.toString()).isEqualTo(b.getRaw(k).orElseThrow().revision());
    }
  }
}
