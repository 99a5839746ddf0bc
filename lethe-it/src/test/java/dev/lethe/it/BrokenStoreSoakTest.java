package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Committed;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.soak.Backend;
import dev.lethe.store.soak.Row;
import dev.lethe.store.soak.Soak;
import dev.lethe.store.soak.SoakOptions;
import dev.lethe.store.soak.StoreOpener;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The soak's oracle can fail: the same soak, against real replicas, but with every client's store
 * wrapped in a deliberately broken one, counts violations in the rows that name the breakage.
 */
class BrokenStoreSoakTest {

  private static final Duration SHORT = Duration.ofSeconds(20);

  private static SoakOptions options(String name, UnaryOperator<Store> broken) {
    // one replica, no chaos: the breakage, not the kills, is what the oracle must see
    return new SoakOptions(42L, SHORT, 1, 4, Backend.FILE, null, null, Duration.ZERO, null, StoreSoakTest.BOTH,
        StoreSoakTest.work(name), StoreSoakTest.serverCommand(), StoreOpener.PROVIDERS, broken);
  }

  @Test
  void aStoreWhoseWritesIgnoreTheExpectedRevisionCountsStaleBases() throws Exception {
    Soak.Result result = StoreSoakTest.run(options("soak-ignores-expected", IgnoresExpected::new));
    assertThat(result.passed()).isFalse();
    assertThat(result.verdict().counts().get(Row.StaleBaseCommitted)).isPositive();
  }

  @Test
  void aStoreThatAcknowledgesWritesItLosesCountsLostWritesAndDeletes() throws Exception {
    Soak.Result result = StoreSoakTest.run(options("soak-loses-writes", LosesWrites::new));
    assertThat(result.passed()).isFalse();
    assertThat(result.verdict().counts().get(Row.LostUpdate)).isPositive();
    assertThat(result.verdict().counts().get(Row.UniqueWriteLost)).isPositive();
    assertThat(result.verdict().counts().get(Row.AckedDeleteLost)).isPositive();
  }

  /** Forwards every call. */
  private abstract static class Forwarding implements Store {
    final Store d;

    Forwarding(Store d) {
      this.d = d;
    }

    @Override public Optional<Record> get(RecordKey key) { return d.get(key); }
    @Override public dev.lethe.store.core.ledger.Ledger ledger() { return d.ledger(); }
    @Override public List<Record> list(KeyPrefix prefix) { return d.list(prefix); }
    @Override public PutResult put(Record record, Optional<Revision> expected) { return d.put(record, expected); }
    @Override public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
      return d.deleteAs(key, expected, author);
    }
    @Override public Optional<Record> getRaw(RecordKey key) { return d.getRaw(key); }
    @Override public List<Record> listRaw(KeyPrefix prefix) { return d.listRaw(prefix); }
    @Override public Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) { return d.listPage(prefix, after, limit); }
    @Override public Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) { return d.listRawPage(prefix, after, limit); }
    @Override public PutResult putRaw(Record record, Optional<Revision> expected) { return d.putRaw(record, expected); }
    @Override public DeleteResult purge(RecordKey key, Optional<Revision> expected) { return d.purge(key, expected); }
    @Override public BlobStore blobs() { return d.blobs(); }
    @Override public int ancestorCap() { return d.ancestorCap(); }
  }

  /** A put or delete that replaces whatever is stored now, whatever revision the caller expected. */
  private static final class IgnoresExpected extends Forwarding {
    IgnoresExpected(Store d) {
      super(d);
    }

    private Optional<Revision> now(RecordKey key) {
      return d.getRaw(key).filter(r -> !r.isTombstone()).map(Record::revision);
    }

    @Override
    public PutResult put(Record record, Optional<Revision> expected) {
      return d.put(record, now(record.key()));
    }

    @Override
    public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
      return d.deleteAs(key, Optional.empty(), author);
    }
  }

  /**
   * Acknowledges every third put and delete, then loses it, as a store that answers before its
   * write is durable loses the write in a crash: the previous record comes back (or, for a create,
   * the key is gone again).
   */
  private static final class LosesWrites extends Forwarding {
    private final AtomicLong writes = new AtomicLong();

    LosesWrites(Store d) {
      super(d);
    }

    private boolean lose() {
      return writes.incrementAndGet() % 3 == 0;
    }

    private void undo(Optional<Record> before, Record written) {
      if (before.isPresent()) {
        d.putRaw(before.get(), Optional.of(written.revision()));
      } else {
        d.purge(written.key(), Optional.of(written.revision()));
      }
    }

    @Override
    public PutResult put(Record record, Optional<Revision> expected) {
      Optional<Record> before = d.getRaw(record.key());
      PutResult result = d.put(record, expected);
      if (result instanceof Committed c && lose()) {
        undo(before, c.record());
      }
      return result;
    }

    @Override
    public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
      Optional<Record> before = d.getRaw(key);
      DeleteResult result = d.deleteAs(key, expected, author);
      if (result instanceof Deleted del && del.tombstone().isPresent() && lose()) {
        undo(before, del.tombstone().get());
      }
      return result;
    }
  }
}
