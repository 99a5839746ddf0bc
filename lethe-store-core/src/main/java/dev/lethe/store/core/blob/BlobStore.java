package dev.lethe.store.core.blob;

import java.util.List;
import java.util.Optional;

/**
 * A content-addressed, write-if-absent blob store (docs/design/0203-store-model.md "Model": body {@code
 * Blob(hash, len)}). Blobs may be shared by many records, so no record operation removes one;
 * only {@link BlobGc} does, for blobs no raw record references.
 *
 * <p>I/O failures are thrown as {@link java.io.UncheckedIOException}.
 */
public interface BlobStore {

  /**
   * Stores {@code content} unless a blob with the same hash exists; either way the blob's stored
   * time is refreshed, so a concurrent {@code gc} grace window covers the caller's next write.
   *
   * @return the blob's hash (SHA-256 hex) and length in bytes
   */
  BlobRef put(byte[] content);

  /**
   * Refreshes the stored time of blob {@code hash} to now (never moving it back) if it is stored:
   * what a record write that names an existing blob does before it writes the record, so a gc
   * already under way keeps the blob (docs/design/0120-a-reused-blob-is-refreshed.md). Atomic
   * against {@link #remove}: either the removal happens first and this returns false, or the blob
   * is kept with the new time.
   *
   * <p>The default reads the content and stores it again ({@link #put} refreshes the time and
   * re-stores content a concurrent removal took), which is correct on any substrate; a substrate
   * overrides it to refresh without moving the bytes.
   *
   * @param hash SHA-256 hex
   * @return whether the blob is stored (and now refreshed); false when absent
   * @throws IllegalArgumentException for a malformed hash
   */
  default boolean touch(String hash) {
    Optional<byte[]> content = get(hash);
    if (content.isEmpty()) {
      return false;
    }
    put(content.get());
    return true;
  }

  /** Returns the content of blob {@code hash}, or empty when absent. */
  Optional<byte[]> get(String hash);

  /** Returns whether blob {@code hash} is stored. */
  boolean contains(String hash);

  /** Returns every stored blob. */
  List<BlobInfo> list();

  /**
   * Removes blob {@code hash} if its stored time is still at or before {@code storedAtOrBeforeMs};
   * called only by {@link BlobGc}. The time is checked again here, not taken from an earlier
   * {@link #list}: a writer that re-stored the same content, or {@link #touch touched} it, since
   * then is about to commit a record that refers to it. Atomic against {@link #put} and {@link
   * #touch}: neither may land between this check and the removal.
   *
   * @param storedAtOrBeforeMs ms since the epoch; a blob stored later is kept
   * @return whether a blob was removed
   */
  boolean remove(String hash, long storedAtOrBeforeMs);
}
