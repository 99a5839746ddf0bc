package dev.lethe.server.store;

import dev.lethe.server.iceberg.AccessCheck;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
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

/**
 * What the store routes do, one method per route, over the served {@link Store}
 * (docs/design/0103-store-http-routes.md). Each method first checks the caller's access, then
 * validates what only the store can check (a record's blobs are stored, a blob's bytes match its
 * hash), then makes exactly one store call; every decision about records is the store's (its
 * planners). Nothing is written when a check fails.
 *
 * <p>Access, until namespace-scoped store grants exist: with auth off everything is allowed; with
 * auth on every store call needs an admin token ({@code "*"} in both lists of the auth file).
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
   */
  public record Info(int formatVersion, int ancestorCap, int maxPageSize) {}

  /**
   * A page of the blob listing.
   *
   * @param blobs the blobs, ordered by hash
   * @param next the last hash of a full page, empty when nothing follows
   */
  public record BlobPage(List<BlobInfo> blobs, Optional<String> next) {}

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

  /** Refuses unless the caller may use the store: 401 without a valid token, 403 for a non-admin. */
  private void authorize(String authorization) {
    access.checkAdmin(authorization);
  }

  Info info(String auth) {
    authorize(auth);
    return new Info(RecordJson.FORMAT_VERSION, store.ancestorCap(), Page.MAX_LIMIT);
  }

  Optional<Record> get(String auth, RecordKey key) {
    authorize(auth);
    return store.get(key);
  }

  Page list(String auth, KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    authorize(auth);
    return store.listPage(prefix, after, limit);
  }

  PutResult put(String auth, Record draft, Optional<Revision> expected) {
    authorize(auth);
    requireBlobs(draft);
    return store.put(draft, expected);
  }

  DeleteResult delete(String auth, RecordKey key, Optional<Revision> expected, Optional<String> author) {
    authorize(auth);
    return store.deleteAs(key, expected, author);
  }

  Optional<Record> getRaw(String auth, RecordKey key) {
    authorize(auth);
    return store.getRaw(key);
  }

  Page listRaw(String auth, KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    authorize(auth);
    return store.listRawPage(prefix, after, limit);
  }

  PutResult putRaw(String auth, Record record, Optional<Revision> expected) {
    authorize(auth);
    requireBlobs(record);
    return store.putRaw(record, expected);
  }

  DeleteResult purge(String auth, RecordKey key, Optional<Revision> expected) {
    authorize(auth);
    return store.purge(key, expected);
  }

  /**
   * Stores a blob uploaded under {@code hash}.
   *
   * @throws IllegalArgumentException if the content does not hash to {@code hash} (nothing stored)
   */
  BlobRef putBlob(String auth, String hash, byte[] content) {
    authorize(auth);
    String actual = ContentHash.of(content);
    if (!actual.equals(hash)) {
      throw new IllegalArgumentException("Invalid blob: the content's SHA-256 is " + actual + ", not " + hash
          + " (nothing stored)");
    }
    return store.blobs().put(content);
  }

  Optional<byte[]> getBlob(String auth, String hash) {
    authorize(auth);
    return store.blobs().get(hash);
  }

  boolean hasBlob(String auth, String hash) {
    authorize(auth);
    return store.blobs().contains(hash);
  }

  BlobPage listBlobs(String auth, Optional<String> after, int limit) {
    authorize(auth);
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

  boolean removeBlob(String auth, String hash, long storedAtOrBeforeMs) {
    authorize(auth);
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
