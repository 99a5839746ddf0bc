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

  /** Returns the content of blob {@code hash}, or empty when absent. */
  Optional<byte[]> get(String hash);

  /** Returns whether blob {@code hash} is stored. */
  boolean contains(String hash);

  /** Returns every stored blob. */
  List<BlobInfo> list();

  /**
   * Removes blob {@code hash} if its stored time is still at or before {@code storedAtOrBeforeMs};
   * called only by {@link BlobGc}. The time is checked again here, not taken from an earlier
   * {@link #list}: a writer that re-stored the same content since then refreshed it and is about
   * to commit a record that refers to it.
   *
   * @param storedAtOrBeforeMs ms since the epoch; a blob stored later is kept
   * @return whether a blob was removed
   */
  boolean remove(String hash, long storedAtOrBeforeMs);
}
