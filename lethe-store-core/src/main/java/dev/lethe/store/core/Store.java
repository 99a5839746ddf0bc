package dev.lethe.store.core;

import dev.lethe.store.core.blob.BlobStore;
import java.util.List;
import java.util.Optional;

/**
 * A versioned record store with two surfaces (docs/design/0203-store-model.md "Two surfaces").
 *
 * <p>The consumer surface ({@link #get}, {@link #list}, {@link #put}, {@link #deleteAs}) hides
 * tombstones. The replication surface ({@link #getRaw}, {@link #listRaw}, {@link #putRaw}, {@link
 * #purge}) shows them; sync and collect read and write only through it.
 * Every method is required: a raw method that fell back to its consumer twin would compile, pass
 * every test without deletes, and resurrect records in production.
 *
 * <p>Outcomes a caller must handle are values ({@link PutResult}, {@link DeleteResult}). I/O
 * failures are thrown as {@link java.io.UncheckedIOException}; a stored record that cannot be read,
 * or whose revision does not prove its content ({@link RevisionHash}), as {@link
 * dev.lethe.store.core.format.CorruptRecordException}, by reads and writes of that key.
 * {@link #putRaw} refuses a record that does not prove its content with {@link
 * IllegalArgumentException}. Invalid arguments throw {@link
 * IllegalArgumentException} before anything is written.
 */
public interface Store {

  /** Returns the live record at {@code key}; empty when absent or deleted. */
  Optional<Record> get(RecordKey key);

  /** Returns the live records under {@code prefix}, ordered by key. */
  List<Record> list(KeyPrefix prefix);

  /**
   * Writes a new version of a record; the store stamps its revision, parent, ancestors and
   * times.
   *
   * <ul>
   *   <li>absent: {@code expected} empty writes counter 1; present returns {@link NotFound};
   *   <li>tombstone: {@code expected} empty recreates the record at the tombstone's counter + 1
   *       with the tombstone as parent; present returns {@link NotFound};
   *   <li>live: {@code expected} equal to its revision writes counter + 1; anything else returns
   *       {@link Conflict}.
   * </ul>
   *
   * @param record a draft; its revision, parent and ancestors are ignored
   * @param expected the revision the caller read, or empty for "must not exist"
   * @throws IllegalArgumentException if the record is a tombstone (write those with delete), or
   *     names a blob this store does not hold (nothing written); a blob it holds is refreshed
   *     first, so a gc under way keeps it (docs/design/0120-a-reused-blob-is-refreshed.md)
   */
  PutResult put(Record record, Optional<Revision> expected);

  /**
   * Deletes a record by writing a tombstone.
   *
   * <p>A live record with a matching or empty {@code expected} becomes a tombstone; a stale
   * {@code expected} returns {@link Conflict}; an absent key or a tombstone writes nothing and
   * returns {@link Deleted}.
   *
   * @param author the deleter to name in the tombstone, or empty to keep the record's last author
   */
  DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author);

  /** {@link #deleteAs} naming no deleter. */
  default DeleteResult delete(RecordKey key, Optional<Revision> expected) {
    return deleteAs(key, expected, Optional.empty());
  }

  /** Returns the record at {@code key}, tombstones included. */
  Optional<Record> getRaw(RecordKey key);

  /** Returns every record under {@code prefix}, tombstones included, ordered by key. */
  List<Record> listRaw(KeyPrefix prefix);

  /**
   * Returns one page of the live records under {@code prefix} whose key is after {@code after},
   * ordered by key, read page by page from the substrate rather than from a whole listing.
   *
   * @param after the {@link Page#next} of the previous page, or empty for the first page; any key
   *     may be given, only keys strictly after it are returned
   * @param limit the most records to return, 1 to {@link Page#MAX_LIMIT}
   * @throws IllegalArgumentException for a limit out of range
   * @throws dev.lethe.store.core.format.CorruptRecordException naming the key when the first record
   *     after {@code after} does not prove its content; a corrupt record later in the page ends the
   *     page before it instead ({@link RevisionHash#checkPage})
   */
  Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit);

  /**
   * {@link #listPage} of the replication surface: tombstones included. A raw walk never falls back
   * to the consumer listing.
   *
   * @throws IllegalArgumentException for a limit out of range
   * @throws dev.lethe.store.core.format.CorruptRecordException as {@link #listPage}
   */
  Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit);

  /**
   * Writes a record exactly as given (only its ancestor list is normalised to this store's cap).
   * Nothing stored and {@code expected} empty: write; nothing stored and {@code expected} present:
   * {@link NotFound}; {@code expected} equal to the stored revision (tombstone or not): write;
   * anything else: {@link Conflict} with the stored record. The blobs the record names are
   * refreshed first, as for {@link #put}.
   *
   * @throws IllegalArgumentException for a record that does not prove its content or is
   *     inconsistent, or that names a blob this store does not hold (nothing written)
   */
  PutResult putRaw(Record record, Optional<Revision> expected);

  /**
   * Writes several records raw, each decided exactly as {@link #putRaw} would decide it alone
   * (docs/design/0115-batched-raw-writes.md): batching saves round trips and transactions, never
   * changes an outcome. The items are applied in order (a key named twice sees the first item's
   * write), and an item's {@link Conflict} or {@link NotFound} does not stop the others. Not
   * atomic: on a thrown failure, any item may or may not be written (a re-run is safe, as each
   * item is conditional; a substrate may write different keys at once,
   * docs/design/0109-fs-store-lock-file-and-parallel-batches.md).
   *
   * <p>The default calls {@link #putRaw} once per item, so every substrate supports it; a
   * substrate overrides it to save work (the JDBC store: one transaction per chunk; the remote
   * client: one request per chunk).
   *
   * @param items the writes, any number; an empty list does nothing
   * @return one result per item, in the items' order
   * @throws IllegalArgumentException as {@link #putRaw} for an invalid item or a blob the store
   *     lacks; a substrate checks every item before writing any
   */
  default List<PutResult> putRawBatch(List<RawPut> items) {
    List<PutResult> out = new java.util.ArrayList<>(items.size());
    for (RawPut item : items) {
      out.add(putRaw(item.record(), item.expected()));
    }
    return out;
  }

  /**
   * Physically removes a record, the only physical removal in a store. Absent: {@link Deleted}
   * (no-op). Stored revision equal to {@code expected}: removed, {@link Deleted}. Anything else,
   * including an empty {@code expected} over a stored record: {@link Conflict}.
   */
  DeleteResult purge(RecordKey key, Optional<Revision> expected);

  /**
   * Returns what this store remembers about itself: its id, its peers, its purge log
   * (docs/design/0150-store-identity-and-peers.md). Kept in the store, never synced. Required of
   * every substrate: a store without a purge log would let sync bring back what collect removed.
   */
  dev.lethe.store.core.ledger.Ledger ledger();

  /** Returns this store's content-addressed blob store. */
  BlobStore blobs();

  /** Returns how many ancestors this store keeps per record, at least 1. */
  int ancestorCap();
}
