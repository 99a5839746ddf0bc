package dev.lethe.store.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * Who wrote a record and when.
 *
 * @param author the last writer's identity, or null when unknown
 * @param origin where the record was written (e.g. a host or a store name), or null
 * @param created when the record was created, ms since the epoch, or null when unstamped
 * @param updated when the record was last written, ms since the epoch, or null when unstamped
 * @param labels free-form labels, never null (copied, sorted by name)
 */
public record Meta(String author, String origin, Long created, Long updated, Map<String, String> labels) {

  /** Metadata with nothing set. */
  public static final Meta EMPTY = new Meta(null, null, null, null, Map.of());

  public Meta {
    labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
  }

  /** Returns metadata naming only an author. */
  public static Meta byAuthor(String author) {
    return new Meta(author, null, null, null, Map.of());
  }

  /** Returns a copy with another author. */
  public Meta withAuthor(String newAuthor) {
    return new Meta(newAuthor, origin, created, updated, labels);
  }

  /** Returns a copy with other times (ms since the epoch, nullable). */
  public Meta withTimes(Long newCreated, Long newUpdated) {
    return new Meta(author, origin, newCreated, newUpdated, labels);
  }
}
