package dev.lethe.store.core.substrate;

import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.blob.BlobReuse;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.planner.ConsumerPutPlanner;
import dev.lethe.store.core.planner.DeletePlanner;
import dev.lethe.store.core.planner.Plan;
import dev.lethe.store.core.planner.PurgePlanner;
import dev.lethe.store.core.planner.RawPutPlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Store} whose every write is decided by a core planner
 * (docs/design/0100-jdbc-store-substrate.md, "Shape"): every rule is a pure function that a
 * substrate calls inside its own critical section. This
 * class says which planner answers which call; a substrate only says how to read a key, how to
 * scan keys in order, and how to run one plan atomically for one key: under a lock ({@link
 * LockingStore}: fs, memory) or in a database transaction holding the row lock (jdbc).
 *
 * <p>Every record a substrate reads is checked by {@link RevisionHash#problem} before anything uses
 * it (docs/design/0108-records-that-prove-their-content.md): reads, listings, pages and the stored
 * record every write plans from. A record whose revision does not prove its content is a {@link
 * CorruptRecordException} naming its key and {@link #locationOf location}: it is never served,
 * never copied by sync, and never written over (as an unreadable record is not). A {@code putRaw}
 * of such a record, or of one whose lineage or deletion fields are inconsistent, is refused before
 * any I/O ({@link RawPutPlanner#validate}). Every put, raw put and batch first refreshes the blobs
 * its records name ({@link BlobReuse#refresh}, docs/design/0120-a-reused-blob-is-refreshed.md), and
 * refuses a record whose blob is not stored.
 */
public abstract class PlannedStore implements Store {

  /** A planner bound to one call's arguments: decides from what the key holds now. */
  @FunctionalInterface
  protected interface Planner<R> {
    /**
     * @param stored what the key holds now (raw), or empty
     */
    Plan<R> plan(Optional<Record> stored);
  }

  /** Page size of {@link #list} and {@link #listRaw}, which walk the substrate page by page. */
  private static final int WALK_PAGE = 500;

  private final int ancestorCap;
  private final Clock clock;

  /**
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock the store's clock, used to stamp created, updated and deletedAt
   * @throws IllegalArgumentException "ancestor cap must be at least 1"
   */
  protected PlannedStore(int ancestorCap, Clock clock) {
    this.ancestorCap = Ancestry.checkCap(ancestorCap);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Reads {@code key}'s record, plans with {@code planner} and applies the plan, atomically: no
   * other write of the key may land between the read the plan was made from and its application.
   *
   * @return the plan's result
   * @throws UncheckedIOException on a substrate failure; nothing was applied
   */
  protected abstract <R> R apply(RecordKey key, Planner<R> planner);

  /**
   * Returns where {@code key}'s record is stored, for messages (a file path, a table row); no I/O.
   */
  protected abstract String locationOf(RecordKey key);

  /** Reads the record stored at {@code key}, tombstones included; empty when absent. */
  protected abstract Optional<Record> read(RecordKey key) throws IOException;

  /**
   * Returns up to {@code limit} records under {@code prefix} with a key strictly after {@code
   * after}, in key order, reading no more of the substrate than it needs: it stops after the
   * record that brings the returned records' {@link Page#sizeOf} to {@code maxBytes} or more, and
   * must not hold much more than that in memory (docs/design/0110-pages-cut-by-bytes.md).
   * Returning fewer records than {@code limit} while their total is below {@code maxBytes} means
   * no further key was found.
   *
   * @param after the key to start after, or null to start at the beginning
   * @param limit at least 1
   * @param maxBytes at least 1, bytes
   * @param liveOnly whether to skip tombstones
   */
  protected abstract List<Record> scan(
      KeyPrefix prefix, RecordKey after, int limit, long maxBytes, boolean liveOnly) throws IOException;

  @Override
  public final int ancestorCap() {
    return ancestorCap;
  }

  /** Returns the store's clock. */
  protected final Clock clock() {
    return clock;
  }

  @Override
  public final Optional<Record> get(RecordKey key) {
    return getRaw(key).filter(r -> !r.isTombstone());
  }

  @Override
  public final List<Record> list(KeyPrefix prefix) {
    return walk(prefix, true);
  }

  @Override
  public final PutResult put(Record record, Optional<Revision> expected) {
    ConsumerPutPlanner.validate(record);
    BlobReuse.refresh(blobs(), record);
    return apply(record.key(), stored ->
        ConsumerPutPlanner.plan(verified(stored), record, expected, clock.millis(), ancestorCap));
  }

  @Override
  public final DeleteResult deleteAs(
      RecordKey key, Optional<Revision> expected, Optional<String> author) {
    return apply(key, stored ->
        DeletePlanner.plan(verified(stored), expected, author, clock.millis(), ancestorCap));
  }

  @Override
  public final Optional<Record> getRaw(RecordKey key) {
    try {
      return verified(read(key));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + key, e);
    }
  }

  @Override
  public final List<Record> listRaw(KeyPrefix prefix) {
    return walk(prefix, false);
  }

  @Override
  public final Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    return page(prefix, after, limit, true);
  }

  @Override
  public final Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    return page(prefix, after, limit, false);
  }

  @Override
  public final PutResult putRaw(Record record, Optional<Revision> expected) {
    RawPutPlanner.validate(record);
    BlobReuse.refresh(blobs(), record);
    return applyRaw(record, expected);
  }

  /**
   * {@link Store#putRawBatch}, with every item checked by {@link RawPutPlanner#validate} and every
   * item's blobs refreshed by {@link BlobReuse#refresh} before any is written, so a batch with an
   * invalid item, or naming a blob the store lacks, writes nothing (the default would write the
   * items before it); then {@link #writeRawBatch}. A substrate overriding this adds its own checks
   * and calls this.
   *
   * @throws IllegalArgumentException for an invalid item or a blob that is not stored, nothing written
   */
  @Override
  public List<PutResult> putRawBatch(List<RawPut> items) {
    items.forEach(item -> RawPutPlanner.validate(item.record()));
    items.forEach(item -> BlobReuse.refresh(blobs(), item.record()));
    return writeRawBatch(items);
  }

  /**
   * Writes the items of a {@link #putRawBatch}, already validated and their blobs refreshed, each
   * decided as its own {@link #applyRaw}. The default runs them one after another; a substrate
   * overrides it to save work (one transaction per chunk, parallel keys), never to change an
   * outcome.
   *
   * @return one result per item, in the items' order
   */
  protected List<PutResult> writeRawBatch(List<RawPut> items) {
    List<PutResult> out = new ArrayList<>(items.size());
    for (RawPut item : items) {
      out.add(applyRaw(item.record(), item.expected()));
    }
    return out;
  }

  /**
   * Plans and applies one raw put of a record already validated and whose blobs were refreshed
   * ({@link #putRaw} without its checks).
   */
  protected final PutResult applyRaw(Record record, Optional<Revision> expected) {
    return apply(record.key(), stored -> RawPutPlanner.plan(verified(stored), record, expected, ancestorCap));
  }

  @Override
  public final DeleteResult purge(RecordKey key, Optional<Revision> expected) {
    return apply(key, stored -> PurgePlanner.plan(key, verified(stored), expected, clock.millis()));
  }

  /** Returns {@code stored} if it proves its content. @throws CorruptRecordException otherwise */
  private Optional<Record> verified(Optional<Record> stored) {
    stored.ifPresent(this::verify);
    return stored;
  }

  private void verify(Record r) {
    RevisionHash.check(r, locationOf(r.key()));
  }

  private Page page(KeyPrefix prefix, Optional<RecordKey> after, int limit, boolean liveOnly) {
    Objects.requireNonNull(prefix, "prefix");
    Page.checkLimit(limit);
    try {
      // One record more than asked tells whether another page follows (unless the budget cut first).
      return RevisionHash.checkPage(
          Page.cut(scan(prefix, after.orElse(null), limit + 1, Page.MAX_BYTES, liveOnly), limit, Page.MAX_BYTES),
          this::locationOf);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + prefix, e);
    }
  }

  private List<Record> walk(KeyPrefix prefix, boolean liveOnly) {
    List<Record> out = new ArrayList<>();
    Optional<RecordKey> after = Optional.empty();
    do {
      Page p = page(prefix, after, WALK_PAGE, liveOnly);
      out.addAll(p.records());
      after = p.next();
    } while (after.isPresent());
    return out;
  }
}
