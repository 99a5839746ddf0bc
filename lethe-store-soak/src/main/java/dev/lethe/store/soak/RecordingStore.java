package dev.lethe.store.soak;

import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.soak.Event.Call;
import dev.lethe.store.soak.Event.Outcome;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * A store that records every call made through it and its answer in a {@link History}, then
 * returns the answer unchanged. A write whose call fails with an I/O error is recorded as {@link
 * Outcome#AMBIGUOUS} (sent, unanswered) and the error is rethrown.
 */
final class RecordingStore implements Store {
  private final Store delegate;
  private final int writer;
  private final History history;
  private final boolean probe;

  RecordingStore(Store delegate, int writer, History history, boolean probe) {
    this.delegate = delegate;
    this.writer = writer;
    this.history = history;
    this.probe = probe;
  }

  /** This store, with every call recorded as the second half of a probe. */
  RecordingStore asProbe() {
    return new RecordingStore(delegate, writer, history, true);
  }

  private void add(Call call, RecordKey key, Optional<Revision> expected, Outcome outcome, Record record, String token) {
    history.add(new Event(writer, call, key, expected, outcome, record, token, probe));
  }

  private void observe(Call call, Record r) {
    add(call, r.key(), Optional.empty(), Outcome.OBSERVED, r, null);
  }

  private void recordPut(Call call, RecordKey key, Optional<Revision> expected, PutResult result, String token) {
    if (result instanceof Committed c) {
      add(call, key, expected, Outcome.COMMITTED, c.record(), token);
    } else if (result instanceof Conflict c) {
      add(call, key, expected, Outcome.CONFLICT, c.current(), token);
    } else {
      add(call, key, expected, Outcome.NOT_FOUND, null, token);
    }
  }

  private void recordDelete(Call call, RecordKey key, Optional<Revision> expected, DeleteResult result) {
    if (result instanceof Conflict c) {
      add(call, key, expected, Outcome.CONFLICT, c.current(), null);
    } else if (call == Call.PURGE) {
      add(call, key, expected, Outcome.DELETED_WROTE, null, null);
    } else {
      Optional<Record> tombstone = ((Deleted) result).tombstone();
      add(call, key, expected, tombstone.isPresent() ? Outcome.DELETED_WROTE : Outcome.DELETED_NOTHING, tombstone.orElse(null), null);
    }
  }

  @Override
  public Optional<Record> get(RecordKey key) {
    Optional<Record> r = delegate.get(key);
    r.ifPresentOrElse(x -> observe(Call.GET, x), () -> add(Call.GET, key, Optional.empty(), Outcome.ABSENT, null, null));
    return r;
  }

  @Override
  public List<Record> list(KeyPrefix prefix) {
    List<Record> rs = delegate.list(prefix);
    rs.forEach(r -> observe(Call.LIST, r));
    return rs;
  }

  @Override
  public PutResult put(Record record, Optional<Revision> expected) {
    String token = Event.tokenOf(record);
    PutResult result;
    try {
      result = delegate.put(record, expected);
    } catch (UncheckedIOException e) {
      add(Call.PUT, record.key(), expected, Outcome.AMBIGUOUS, null, token);
      throw e;
    }
    recordPut(Call.PUT, record.key(), expected, result, token);
    return result;
  }

  @Override
  public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
    DeleteResult result;
    try {
      result = delegate.deleteAs(key, expected, author);
    } catch (UncheckedIOException e) {
      add(Call.DELETE, key, expected, Outcome.AMBIGUOUS, null, null);
      throw e;
    }
    recordDelete(Call.DELETE, key, expected, result);
    return result;
  }

  @Override
  public Optional<Record> getRaw(RecordKey key) {
    Optional<Record> r = delegate.getRaw(key);
    r.ifPresentOrElse(x -> observe(Call.GET_RAW, x), () -> add(Call.GET_RAW, key, Optional.empty(), Outcome.ABSENT, null, null));
    return r;
  }

  @Override
  public List<Record> listRaw(KeyPrefix prefix) {
    List<Record> rs = delegate.listRaw(prefix);
    rs.forEach(r -> observe(Call.LIST_RAW, r));
    return rs;
  }

  @Override
  public Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    Page p = delegate.listPage(prefix, after, limit);
    p.records().forEach(r -> observe(Call.LIST, r));
    return p;
  }

  @Override
  public Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    Page p = delegate.listRawPage(prefix, after, limit);
    p.records().forEach(r -> observe(Call.LIST_RAW, r));
    return p;
  }

  @Override
  public PutResult putRaw(Record record, Optional<Revision> expected) {
    String token = Event.tokenOf(record);
    PutResult result;
    try {
      result = delegate.putRaw(record, expected);
    } catch (UncheckedIOException e) {
      add(Call.PUT_RAW, record.key(), expected, Outcome.AMBIGUOUS, null, token);
      throw e;
    }
    recordPut(Call.PUT_RAW, record.key(), expected, result, token);
    return result;
  }

  @Override
  public List<PutResult> putRawBatch(List<RawPut> items) {
    List<PutResult> results;
    try {
      results = delegate.putRawBatch(items);
    } catch (UncheckedIOException e) {
      items.forEach(i -> add(Call.PUT_RAW, i.record().key(), i.expected(), Outcome.AMBIGUOUS, null, Event.tokenOf(i.record())));
      throw e;
    }
    for (int i = 0; i < items.size(); i++) {
      RawPut item = items.get(i);
      recordPut(Call.PUT_RAW, item.record().key(), item.expected(), results.get(i), Event.tokenOf(item.record()));
    }
    return results;
  }

  @Override
  public DeleteResult purge(RecordKey key, Optional<Revision> expected) {
    DeleteResult result;
    try {
      result = delegate.purge(key, expected);
    } catch (UncheckedIOException e) {
      add(Call.PURGE, key, expected, Outcome.AMBIGUOUS, null, null);
      throw e;
    }
    recordDelete(Call.PURGE, key, expected, result);
    return result;
  }

  @Override
  public BlobStore blobs() {
    return delegate.blobs();
  }

  @Override
  public int ancestorCap() {
    return delegate.ancestorCap();
  }

  /** The wrapped store's ledger, unrecorded: the soak's oracle judges records, not peers or the purge log. */
  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return delegate.ledger();
  }
}
