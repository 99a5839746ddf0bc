package dev.lethe.server.store;

import dev.lethe.server.auth.Principal;
import dev.lethe.server.auth.StoreAction;
import dev.lethe.server.auth.StoreAuthorship;
import dev.lethe.server.auth.StoreGrants;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.format.RecordJson;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.exceptions.ForbiddenException;

/**
 * What the store routes do, one method per route, over the served {@link Store}
 * (docs/design/0103-store-http-routes.md). Each method first checks the caller's access, then
 * validates what only the store can check (a record's blobs are stored, a blob's bytes match its
 * hash), then makes exactly one store call; every decision about records is the store's (its
 * planners). Nothing is written when a check fails.
 *
 * <p>Access (docs/design/0105-store-grants.md): the route identifies the caller first ({@link
 * #caller}: 401 without a valid token); each method then asks {@link StoreGrants} whether the
 * caller may do its action on the namespace (403 otherwise) before it reads anything, so a refusal
 * reveals nothing about the key. Authorship is stamped by {@link StoreAuthorship}: a non-admin's
 * puts, deletes and raw puts carry its own name. With auth off the caller is empty and everything
 * is allowed, claims kept.
 *
 * <p>Thread-safe.
 */
public final class StoreService {

  /**
   * What a client needs to know about the served store.
   *
   * @param formatVersion the record format version the server reads and writes
   * @param ancestorCap ancestors the store keeps per record
   * @param maxPageSize the largest {@code pageSize}
   * @param maxBatchItems the most items of one batched raw put
   */
  public record Info(int formatVersion, int ancestorCap, int maxPageSize, int maxBatchItems) {}

  /**
   * A page of the blob listing.
   *
   * @param blobs the blobs, ordered by hash
   * @param next the last hash of a full page, empty when nothing follows
   */
  public record BlobPage(List<BlobInfo> blobs, Optional<String> next) {}

  /** The most items of one {@code POST /store/v1/raw/batch/{ns}}. */
  public static final int MAX_BATCH_ITEMS = 1000;

  private final Store store;
  private final AccessCheck access;

  /**
   * @param store the served store, never null
   * @param access the server's access check; {@link AccessCheck#ALLOW_ALL} when auth is off
   */
  public StoreService(Store store, AccessCheck access) {
    this.store = Objects.requireNonNull(store, "store");
    this.access = Objects.requireNonNull(access, "access");
  }

  /**
   * Identifies the caller of a store route.
   *
   * @param authorization the raw {@code Authorization} header, null if absent; never logged
   * @return the principal, empty when auth is off
   * @throws org.apache.iceberg.exceptions.NotAuthorizedException (401) without a valid token
   */
  Optional<Principal> caller(String authorization) {
    return access.storeCaller(authorization);
  }

  /** Refuses (403) unless the caller may do {@code action} on {@code namespace}; auth off allows all. */
  private static void authorize(Optional<Principal> caller, StoreAction action, Optional<String> namespace) {
    if (caller.isEmpty()) {
      return;
    }
    if (StoreGrants.decide(caller.get(), action, namespace) instanceof StoreGrants.Deny deny) {
      throw new ForbiddenException("%s", deny.reason());
    }
  }

  private static void authorize(Optional<Principal> caller, StoreAction action, RecordKey key) {
    authorize(caller, action, Optional.of(key.namespace()));
  }

  private static void authorize(Optional<Principal> caller, StoreAction action, KeyPrefix prefix) {
    authorize(caller, action, Optional.ofNullable(prefix.namespace()));
  }

  Info info(Optional<Principal> auth) {
    authorize(auth, StoreAction.INFO, Optional.empty());
    return new Info(RecordJson.FORMAT_VERSION, store.ancestorCap(), Page.MAX_LIMIT, MAX_BATCH_ITEMS);
  }

  Optional<Record> get(Optional<Principal> auth, RecordKey key) {
    authorize(auth, StoreAction.READ, key);
    return store.get(key);
  }

  Page list(Optional<Principal> auth, KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    authorize(auth, StoreAction.LIST, prefix);
    return store.listPage(prefix, after, limit);
  }

  PutResult put(Optional<Principal> auth, Record draft, Optional<Revision> expected) {
    authorize(auth, StoreAction.WRITE, draft.key());
    requireBlobs(draft);
    Optional<String> author = StoreAuthorship.consumerAuthor(auth, Optional.ofNullable(draft.meta().author()));
    return store.put(draft.withMeta(draft.meta().withAuthor(author.orElse(null))), expected);
  }

  DeleteResult delete(Optional<Principal> auth, RecordKey key, Optional<Revision> expected, Optional<String> claimed) {
    authorize(auth, StoreAction.WRITE, key);
    return store.deleteAs(key, expected, StoreAuthorship.consumerAuthor(auth, claimed));
  }

  Optional<Record> getRaw(Optional<Principal> auth, RecordKey key) {
    authorize(auth, StoreAction.READ, key);
    return store.getRaw(key);
  }

  Page listRaw(Optional<Principal> auth, KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    authorize(auth, StoreAction.LIST, prefix);
    return store.listRawPage(prefix, after, limit);
  }

  PutResult putRaw(Optional<Principal> auth, Record record, Optional<Revision> expected) {
    authorize(auth, StoreAction.PUT_RAW, record.key());
    requireBlobs(record);
    return store.putRaw(stampRaw(auth, record), expected);
  }

  /**
   * A raw put's record with its author stamped as {@link StoreAuthorship#rawAuthor} says. A
   * format-3 revision covers its author, so such a record is never re-stamped: one whose author the
   * rule would change is refused (docs/design/0155-a-revision-covers-what-sync-compares.md).
   *
   * @throws ForbiddenException (403) for a format-3 record naming an author other than the caller's
   */
  private static Record stampRaw(Optional<Principal> auth, Record record) {
    Optional<String> recorded = Optional.ofNullable(record.meta().author());
    Optional<String> author = StoreAuthorship.rawAuthor(auth, recorded);
    if (author.equals(recorded)) {
      return record;
    }
    if (record.format() >= dev.lethe.store.core.FormatVersion.V3 && !record.isTombstone()) {
      throw new ForbiddenException("Principal '%s' may raw put only records whose author is '%s': record %s names %s,"
          + " and its revision covers its author (replicate other writers' records with a store admin token)",
          auth.map(Principal::name).orElse(""), author.orElse(""), record.key(),
          recorded.map(a -> "'" + a + "'").orElse("no author"));
    }
    return record.withMeta(record.meta().withAuthor(author.orElse(null)));
  }

  /**
   * Raw puts of a batch in namespace {@code namespace}: the caller needs write on it (as for each
   * single raw put), every item's blobs must be stored, and each item's author is stamped as the
   * single route stamps it; then one {@link Store#putRawBatch} call decides each item as its own
   * {@code putRaw} (docs/design/0115-batched-raw-writes.md). A refused check writes nothing.
   *
   * @param items parsed items, every key in {@code namespace}
   * @return one result per item, in order
   */
  List<PutResult> putRawBatch(Optional<Principal> auth, String namespace, List<RawPut> items) {
    authorize(auth, StoreAction.PUT_RAW, Optional.of(namespace));
    List<RawPut> stamped = new java.util.ArrayList<>(items.size());
    for (RawPut item : items) {
      Record record = item.record();
      requireBlobs(record);
      stamped.add(new RawPut(stampRaw(auth, record), item.expected()));
    }
    return store.putRawBatch(stamped);
  }

  /**
   * The served store's ledger for {@code action} (docs/design/0150-store-identity-and-peers.md
   * "Routes"): INFO for its id, clock and collect cutoff; LIST on the prefix for its purge log;
   * BLOB_WRITE (a writer of some namespace, as a sync is) to record a peer; PURGE (admins) to list
   * or forget peers, record a collect or trim the log.
   */
  dev.lethe.store.core.ledger.Ledger ledger(Optional<Principal> auth, StoreAction action, KeyPrefix prefix) {
    authorize(auth, action, prefix);
    return store.ledger();
  }

  DeleteResult purge(Optional<Principal> auth, RecordKey key, Optional<Revision> expected) {
    authorize(auth, StoreAction.PURGE, key);
    return store.purge(key, expected);
  }

  /**
   * Stores a blob uploaded under {@code hash}.
   *
   * @throws IllegalArgumentException if the content does not hash to {@code hash} (nothing stored)
   */
  BlobRef putBlob(Optional<Principal> auth, String hash, byte[] content) {
    authorize(auth, StoreAction.BLOB_WRITE, Optional.empty());
    String actual = ContentHash.of(content);
    if (!actual.equals(hash)) {
      throw new IllegalArgumentException("Invalid blob: the content's SHA-256 is " + actual + ", not " + hash
          + " (nothing stored)");
    }
    return store.blobs().put(content);
  }

  Optional<byte[]> getBlob(Optional<Principal> auth, String hash) {
    authorize(auth, StoreAction.BLOB_READ, Optional.empty());
    return store.blobs().get(hash);
  }

  boolean hasBlob(Optional<Principal> auth, String hash) {
    authorize(auth, StoreAction.BLOB_READ, Optional.empty());
    return store.blobs().contains(hash);
  }

  BlobPage listBlobs(Optional<Principal> auth, Optional<String> after, int limit) {
    authorize(auth, StoreAction.BLOB_ADMIN, Optional.empty());
    // BlobStore lists whole (hash, length, time) triples, never contents; the page is cut here.
    List<BlobInfo> all = store.blobs().list().stream()
        .filter(b -> after.isEmpty() || b.hash().compareTo(after.get()) > 0)
        .sorted(java.util.Comparator.comparing(BlobInfo::hash))
        .limit(limit + 1L)
        .toList();
    if (all.size() <= limit) {
      return new BlobPage(all, Optional.empty());
    }
    List<BlobInfo> page = all.subList(0, limit);
    return new BlobPage(page, Optional.of(page.get(limit - 1).hash()));
  }

  boolean removeBlob(Optional<Principal> auth, String hash, long storedAtOrBeforeMs) {
    authorize(auth, StoreAction.BLOB_ADMIN, Optional.empty());
    return store.blobs().remove(hash, storedAtOrBeforeMs);
  }

  /** No store holds a record whose blob it lacks: a put naming a missing blob is refused. */
  private void requireBlobs(Record record) {
    for (String hash : record.referencedBlobs()) {
      if (!store.blobs().contains(hash)) {
        throw new IllegalArgumentException("Cannot put " + record.key() + ": blob " + hash
            + " is not stored here (PUT /store/v1/blobs/" + hash + " first; nothing written)");
      }
    }
  }
}
