package dev.lethe.store.core.testing;

import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real store with another writer's action slipped in once, just before the first replication
 * or delete write (putRaw, deleteAs or purge) of a chosen key: the interleaving a concurrent
 * client would cause between a sync's, a reset's or a collect's read and its write. Built with
 * {@link #afterListing}, the action runs instead right after the first {@code listRaw} has read
 * the store, before the listing is returned.
 */
public final class InterleavingStore implements Store {

  private final Store delegate;
  private final RecordKey key;
  private final Runnable interloper;
  private final AtomicBoolean fired = new AtomicBoolean();

  /**
   * @param delegate the store under test
   * @param key the key whose first delete or purge triggers {@code interloper}
   * @param interloper the concurrent writer's action, run once
   */
  public InterleavingStore(Store delegate, RecordKey key, Runnable interloper) {
    this.delegate = delegate;
    this.key = key;
    this.interloper = interloper;
  }

  /**
   * A store whose first {@code listRaw} reads the records, then runs {@code interloper}, then
   * returns what it read: a writer slipping in while a long listing (gc, sync) is under way.
   */
  public static InterleavingStore afterListing(Store delegate, Runnable interloper) {
    return new InterleavingStore(delegate, null, interloper);
  }

  private void maybeFire(RecordKey k) {
    if (k != null && k.equals(key) && fired.compareAndSet(false, true)) {
      interloper.run();
    }
  }

  @Override public Optional<Record> get(RecordKey k) { return delegate.get(k); }
  @Override public List<Record> list(KeyPrefix p) { return delegate.list(p); }
  @Override public PutResult put(Record r, Optional<Revision> e) { return delegate.put(r, e); }

  @Override
  public DeleteResult deleteAs(RecordKey k, Optional<Revision> e, Optional<String> a) {
    maybeFire(k);
    return delegate.deleteAs(k, e, a);
  }

  @Override public Optional<Record> getRaw(RecordKey k) { return delegate.getRaw(k); }
  @Override
  public List<Record> listRaw(KeyPrefix p) {
    List<Record> read = delegate.listRaw(p);
    if (key == null && fired.compareAndSet(false, true)) {
      interloper.run();
    }
    return read;
  }
  @Override
  public Page listPage(KeyPrefix p, Optional<RecordKey> after, int limit) {
    return delegate.listPage(p, after, limit);
  }

  @Override
  public Page listRawPage(KeyPrefix p, Optional<RecordKey> after, int limit) {
    return delegate.listRawPage(p, after, limit);
  }

  @Override
  public PutResult putRaw(Record r, Optional<Revision> e) {
    maybeFire(r.key());
    return delegate.putRaw(r, e);
  }

  @Override
  public DeleteResult purge(RecordKey k, Optional<Revision> e) {
    maybeFire(k);
    return delegate.purge(k, e);
  }

  @Override public BlobStore blobs() { return delegate.blobs(); }
  @Override public dev.lethe.store.core.ledger.Ledger ledger() { return delegate.ledger(); }
  @Override public int ancestorCap() { return delegate.ancestorCap(); }
}
