package dev.lethe.store.core.tombstone;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.ancestry.Ancestry;
import java.util.Optional;

/**
 * How a delete turns a live record into a tombstone (docs/design/0203-store-model.md "Model"; replicated
 * deletion design, "Tombstone record").
 *
 * <p>The tombstone's hash is domain-separated ({@code SHA-256("lethe:tombstone:v1")}), so a
 * tombstone never equals an edit to an empty body at the same counter, and two stores deleting
 * the same revision produce the same tombstone revision.
 */
public final class Tombstones {

  /** The domain-separation string hashed into every tombstone revision. */
  public static final String DOMAIN = "lethe:tombstone:v1";

  /** {@code SHA-256("lethe:tombstone:v1")} as hex. */
  public static final String HASH = ContentHash.ofUtf8(DOMAIN);

  private Tombstones() {}

  /** Returns the revision of the tombstone of {@code deleted}: counter + 1, the tombstone hash. */
  public static Revision revisionAfter(Revision deleted) {
    return new Revision(deleted.counter() + 1, HASH);
  }

  /**
   * Builds the tombstone of a live record.
   *
   * @param live the record being deleted, not a tombstone
   * @param deleter the deleter to name as author, or empty to keep the record's last author
   * @param nowMs deletion time, ms since the epoch
   * @param cap the store's ancestor cap
   */
  public static Record of(Record live, Optional<String> deleter, long nowMs, int cap) {
    if (live.isTombstone()) {
      throw new IllegalArgumentException("Cannot delete " + live.key() + ": already a tombstone");
    }
    Revision rev = revisionAfter(live.revision());
    String pinned = live.body() instanceof Body.Blob blob ? blob.hash() : null;
    return new Record(live.key(), Kind.TOMBSTONE, rev, live.revision(),
        Ancestry.after(live, rev, cap), Body.EMPTY,
        deleter.map(live.meta()::withAuthor).orElse(live.meta()), nowMs, pinned, live.links());
  }
}
