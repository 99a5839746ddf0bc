package dev.lethe.store.core;

import java.util.Comparator;

/**
 * A record's version: an edit counter and the SHA-256 hex of the body (docs/design/0203-store-model.md
 * "Model"). Revisions are ordered by counter, then by hash. Counters count edits; they do not
 * order concurrent edits, which is why sync uses ancestry rather than this order (except between
 * two tombstones).
 *
 * @param counter the number of edits, 0 to {@link #MAX_COUNTER}
 * @param hash 64 lowercase hex characters
 */
public record Revision(long counter, String hash) implements Comparable<Revision> {

  /**
   * The largest counter: 2^53 - 1, the largest integer every JSON reader (a JavaScript client
   * among them) keeps exactly, so a revision read and sent back as {@code If-Match} is the one
   * stored. Edits add one each, so only a forged record comes near it; without the bound a
   * replicated counter of 2^63 - 1 was accepted and every later put or delete of that key
   * overflowed (docs/design/0413-revision-counters-stay-exact.md).
   */
  public static final long MAX_COUNTER = (1L << 53) - 1;

  private static final Comparator<Revision> ORDER =
      Comparator.comparingLong(Revision::counter).thenComparing(Revision::hash);

  /**
   * @throws IllegalArgumentException if the counter is negative or above {@link #MAX_COUNTER}, or
   *     the hash is not SHA-256 hex
   */
  public Revision {
    if (counter < 0) {
      throw new IllegalArgumentException("Invalid revision: counter " + counter + " is negative");
    }
    if (counter > MAX_COUNTER) {
      throw new IllegalArgumentException("Invalid revision: counter " + counter + " is above " + MAX_COUNTER
          + " (2^53 - 1, the largest integer every JSON reader keeps exactly)");
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
