package dev.lethe.store.core.blob;

/**
 * A stored blob as listed.
 *
 * @param hash SHA-256 hex of the content
 * @param length content length in bytes
 * @param storedAt when the blob was last stored or refreshed, ms since the epoch
 */
public record BlobInfo(String hash, long length, long storedAt) {}
