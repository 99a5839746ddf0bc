package dev.lethe.store.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.memory.MemoryStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The soak's writers, seeded, racing on one correct in-memory store: the oracle counts nothing;
 * the same run with one write-once record taken out of the final answers counts exactly that.
 */
class WriterOnMemoryStoreTest {

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 20261202})
  void writersOnACorrectStoreBreakNoRow(long seed) throws Exception {
    Store shared = new MemoryStore(32, Clock.systemUTC());
    List<Store> locals = List.of(new MemoryStore(32, Clock.systemUTC()), new MemoryStore(32, Clock.systemUTC()));
    History history = new History();
    String ns = "soak-t" + seed;
    int writers = 4;
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      AtomicInteger steps = new AtomicInteger();
      Client client = new Client(List.of(new RecordingStore(shared, w, history, false)), seed + w);
      Writer writer = new Writer(w, ns, client, locals, seed, () -> steps.incrementAndGet() > 150, e -> {
        throw e;
      });
      threads.add(new Thread(writer));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    FinalState end = new FinalState(List.of(byKey(shared.listRaw(KeyPrefix.namespace(ns)))),
        List.of(byKey(shared.list(KeyPrefix.namespace(ns)))));
    Oracle.Verdict verdict = Oracle.judge(history.events(), end, new RunFacts(writers, false, 0, 0, 0));
    assertThat(verdict.examples()).isEmpty();
    assertThat(verdict.passed()).isTrue();
    assertThat(verdict.info().get("delete-versus-edit conflicts")).isPositive();

    Map<RecordKey, Record> lost = new TreeMap<>(end.raw().get(0));
    RecordKey once = lost.keySet().stream().filter(k -> k.collection().equals(Oracle.ONCE)).findFirst().orElseThrow();
    lost.remove(once);
    Map<RecordKey, Record> lostConsumer = new TreeMap<>(end.consumer().get(0));
    lostConsumer.remove(once);
    Oracle.Verdict broken = Oracle.judge(history.events(), new FinalState(List.of(lost), List.of(lostConsumer)),
        new RunFacts(writers, false, 0, 0, 0));
    assertThat(broken.counts()).containsEntry(Row.UniqueWriteLost, 1L);
    assertThat(broken.counts().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(1L);
  }

  private static Map<RecordKey, Record> byKey(List<Record> records) {
    Map<RecordKey, Record> m = new TreeMap<>();
    records.forEach(r -> m.put(r.key(), r));
    return m;
  }
}
