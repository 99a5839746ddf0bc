package dev.lethe.store.core.planner;

import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.ancestry.Ancestry;
import java.util.Optional;

/**
 * Decides a replication {@code putRaw} (docs/design/0203-store-model.md "Replication writes"). Four rules: nothing stored and no expected revision writes; nothing stored but an
 * expected revision is {@code NotFound}; an expected revision equal to the stored one (tombstone
 * or not) writes verbatim; anything else is a {@code Conflict} carrying the stored record. A copy
 * racing a delete therefore conflicts instead of turning into a recreation.
 *
 * <p>A record a raw put writes comes from outside the store (a peer, a client), so it is checked
 * first by {@link #problem}, the one rule of what such a record must be
 * (docs/design/0118-a-replicated-record-is-consistent.md); every substrate calls {@link #validate}
 * before any I/O, for a single raw put and for every item of a batch, before it plans.
 */
public final class RawPutPlanner {

  private RawPutPlanner() {}

  /**
   * Returns why {@code record} may not be written by a raw put, one line without its key, or empty
   * when it may (docs/design/0118-a-replicated-record-is-consistent.md). Pure. A record must
   *
   * <ul>
   *   <li>prove its content ({@link RevisionHash#problem});
   *   <li>carry {@code deletedAt} and {@code deletedBlob} only if it is a tombstone: on a live record
   *       they would make a put look like a delete to a reader of those fields (collect, gc);
   *   <li>have a parent whose counter is below its own: a record is written over its parent, and
   *       every write adds at least 1 to the counter;
   *   <li>list only ancestors whose counter is below its own (its own revision is allowed and
   *       dropped when the list is normalised): sync fast-forwards a store that holds any listed
   *       ancestor, so a listed "ancestor" that is not older would let one record overwrite a newer
   *       one.
   * </ul>
   *
   * Every record Lethe stamps itself (put, recreation, delete, merge) follows these rules; a stored
   * record is not re-checked on read, so records written before the rule still read.
   */
  public static Optional<String> problem(Record record) {
    Optional<String> content = RevisionHash.problem(record);
    if (content.isPresent()) {
      return content;
    }
    long counter = record.revision().counter();
    if (!record.isTombstone()) {
      if (record.deletedAt() != null) {
        return Optional.of("a live record (kind " + record.kind() + ") has deletedAt " + record.deletedAt()
            + "; only a tombstone has one");
      }
      if (record.deletedBlob() != null) {
        return Optional.of("a live record (kind " + record.kind() + ") has deletedBlob " + record.deletedBlob()
            + "; only a tombstone pins a deleted blob");
      }
    }
    if (record.parent() != null && record.parent().counter() >= counter) {
      return Optional.of("its parent " + record.parent() + " is not older than its revision " + record.revision()
          + " (a parent's counter is below the record's)");
    }
    for (Revision a : record.ancestors()) {
      if (a.counter() >= counter && !a.equals(record.revision())) {
        return Optional.of("its ancestor " + a + " is not older than its revision " + record.revision()
            + " (an ancestor's counter is below the record's)");
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses a record {@link #problem} finds a problem with, before any I/O.
   *
   * @throws IllegalArgumentException {@code "Cannot put <key>: <problem> (nothing written)"}
   */
  public static void validate(Record record) {
    problem(record).ifPresent(p -> {
      throw new IllegalArgumentException("Cannot put " + record.key() + ": " + p + " (nothing written)");
    });
  }

  /**
   * Plans a raw put. The written record is {@code record} with its ancestors normalised (deduped,
   * own revision removed, newest first, capped); nothing else is changed. The caller has run
   * {@link #validate} on {@code record} before any I/O (not repeated here: it hashes the body, and a
   * batch plans inside a transaction); the conformance suite's case 48 proves every substrate does.
   */
  public static Plan<PutResult> plan(
      Optional<Record> stored, Record record, Optional<Revision> expected, int cap) {
    boolean write;
    if (stored.isEmpty()) {
      if (expected.isPresent()) {
        return new Plan.Reply<>(new NotFound());
      }
      write = true;
    } else {
      write = expected.isPresent() && expected.get().equals(stored.get().revision());
    }
    if (!write) {
      return new Plan.Reply<>(new Conflict(stored.get()));
    }
    Record normalized =
        record.withAncestors(Ancestry.normalize(record.ancestors(), record.revision(), cap));
    return new Plan.Write<>(normalized, new Committed(normalized));
  }
}
