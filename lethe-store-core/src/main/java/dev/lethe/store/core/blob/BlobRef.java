package dev.lethe.store.core.blob;

import dev.lethe.store.core.Body;

/**
 * A stored blob's address.
 *
 * @param hash SHA-256 hex of the content
 * @param length content length in bytes
 */
public record BlobRef(String hash, long length) {
  /** Returns a record body referring to this blob. */
  public Body.Blob body() {
    return new Body.Blob(hash, length);
  }
}
