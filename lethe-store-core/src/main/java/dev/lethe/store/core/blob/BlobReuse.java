package dev.lethe.store.core.blob;

import dev.lethe.store.core.Record;
import java.util.Collection;

/**
 * What a record write does to the blobs it names before the record is written
 * (docs/design/0120-a-reused-blob-is-refreshed.md): it {@link BlobStore#touch touches} each, so a
 * blob the record starts to use (named by hash, or carried by a sync that found it already there)
 * is young to a gc already under way, whose removal checks the time again; and it refuses a record
 * whose blob is not stored, so no store holds a record whose blob it lacks. Every substrate calls
 * it: {@link dev.lethe.store.core.substrate.PlannedStore} for its put, raw put and batch; a
 * substrate that implements {@link dev.lethe.store.core.Store} directly calls it itself.
 */
public final class BlobReuse {

  private BlobReuse() {}

  /**
   * Touches every blob {@code record} references (its blob body and its pinned {@code
   * deletedBlob}).
   *
   * @throws IllegalArgumentException naming the key and the hash when one is not stored; blobs
   *     touched before it stay touched (harmless: a touch only delays a sweep by the grace), and the
   *     caller writes nothing
   * @throws java.io.UncheckedIOException on a blob store error
   */
  public static void refresh(BlobStore blobs, Record record) {
    for (String hash : record.referencedBlobs()) {
      if (!blobs.touch(hash)) {
        throw new IllegalArgumentException("Cannot put " + record.key() + ": blob " + hash
            + " is not stored here (store the blob first; nothing written)");
      }
    }
  }

  /** {@link #refresh} of every record, in order, before any of them is written. */
  public static void refreshAll(BlobStore blobs, Collection<Record> records) {
    for (Record r : records) {
      refresh(blobs, r);
    }
  }
}
