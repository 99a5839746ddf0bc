package dev.lethe.store.core.memory;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.blob.MemoryBlobStore;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.MemoryLedger;
import dev.lethe.store.core.substrate.LockingStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-memory store (docs/design/0203-store-model.md "Substrates": memory, for tests). One lock per store
 * serialises writes; reads see a consistent record per key.
 */
public final class MemoryStore extends LockingStore {

  private final ConcurrentSkipListMap<RecordKey, Record> records = new ConcurrentSkipListMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final MemoryBlobStore blobs;
  private final MemoryLedger ledger;

  /**
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock stamps created, updated, deletedAt and blob times
   * @throws IllegalArgumentException "ancestor cap must be at least 1"
   */
  public MemoryStore(int ancestorCap, Clock clock) {
    super(ancestorCap, clock);
    this.blobs = new MemoryBlobStore(clock);
    this.ledger = new MemoryLedger(clock);
  }

  @Override
  protected <T> T locked(RecordKey key, LockedAction<T> action) throws java.io.IOException {
    lock.lock();
    try {
      return action.run();
    } finally {
      lock.unlock();
    }
  }

  @Override
  protected String locationOf(RecordKey key) {
    return "memory store key " + key;
  }

  @Override
  protected Optional<Record> read(RecordKey key) {
    return Optional.ofNullable(records.get(key));
  }

  @Override
  protected void write(Record record) {
    records.put(record.key(), record);
  }

  @Override
  protected void remove(RecordKey key) {
    records.remove(key);
  }

  @Override
  protected List<RecordKey> keysAfter(KeyPrefix prefix, RecordKey after, int limit) {
    List<RecordKey> out = new ArrayList<>();
    for (RecordKey k : (after == null ? records : records.tailMap(after, false)).keySet()) {
      if (prefix.matches(k)) {
        out.add(k);
        if (out.size() == limit) {
          break;
        }
      }
    }
    return out;
  }

  @Override
  public Ledger ledger() {
    return ledger;
  }

  @Override
  public BlobStore blobs() {
    return blobs;
  }

  @Override
  public String toString() {
    return "memory:";
  }
}
