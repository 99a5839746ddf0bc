package dev.lethe.store.s3.qualify;

import java.util.List;
import java.util.Optional;

/**
 * The conditional object operations the S3 store rests on (docs/design/0131-qualify-s3-probe.md),
 * as the probe exercises them. A lost condition is a value ({@code empty} / {@code false}); a
 * failure of the server is thrown as {@link java.io.UncheckedIOException}.
 */
public interface ConditionalObjects {

  /** {@code PUT If-None-Match: *}: returns the new ETag, or empty when the key exists. */
  Optional<String> createIfAbsent(String key, byte[] body);

  /** {@code PUT If-Match: etag}: returns the new ETag, or empty when the key does not hold {@code etag}. */
  Optional<String> replaceIfMatch(String key, String etag, byte[] body);

  /** {@code DELETE If-Match: etag}: returns whether the object was deleted (false when it did not hold {@code etag}). */
  boolean deleteIfMatch(String key, String etag);

  /** Returns the object's content, or empty when absent. */
  Optional<byte[]> read(String key);

  /** Returns the object's ETag, or empty when absent. */
  Optional<String> etag(String key);

  /** Returns every key starting with {@code prefix}. */
  List<String> keys(String prefix);

  /** Deletes {@code key} without condition; absent is fine. */
  void delete(String key);
}
