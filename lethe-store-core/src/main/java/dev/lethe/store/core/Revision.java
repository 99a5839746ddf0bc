package dev.lethe.store.core;

import java.util.Comparator;

/**
 * A record's version: an edit counter and the SHA-256 hex of the body (docs/design/0203-store-model.md
 * "Model"). Revisions are ordered by counter, then by hash. Counters count edits; they do not
 * order concurrent edits, which is why sync uses ancestry rather than this order (except between
 * two tombstones).
 *
 * @param counter the number of edits, at least 0
 * @param hash 64 lowercase hex characters
 */
public record Revision(long counter, String hash) implements Comparable<Revision> {

  private static final Comparator<Revision> ORDER =
      Comparator.comparingLong(Revision::counter).thenComparing(Revision::hash);

  /** @throws IllegalArgumentException if the counter is negative or the hash is not SHA-256 hex */
  public Revision {
    if (counter < 0) {
      throw new IllegalArgumentException("Invalid revision: counter " + counter + " is negative");
    }
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException(
          "Invalid revision: hash must be 64 lowercase hex characters, got '" + hash + "'");
    }
  }

  @Override
  public int compareTo(Revision o) {
    return ORDER.compare(this, o);
  }

  /** Returns the larger of two revisions in {@code (counter, hash)} order. */
  public static Revision max(Revision a, Revision b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public String toString() {
    return counter + ":" + hash.substring(0, 12);
  }
}
