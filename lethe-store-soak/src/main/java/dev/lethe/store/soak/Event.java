package dev.lethe.store.soak;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.util.Objects;
import java.util.Optional;

/**
 * One call a soak client made on a replica, and what it was told (docs/design/0145-ha-soak.md
 * "History"). Immutable.
 *
 * @param writer the writer that made the call, 0 to W-1; -1 for the final read
 * @param call what was called
 * @param key the key, never null
 * @param expected the expected revision sent with a write; empty for none and for reads
 * @param outcome what the store answered, {@link Outcome#AMBIGUOUS} when no answer came
 * @param record the record of the answer: the stored record of a commit, the tombstone a delete
 *     wrote, the current record of a conflict, the record a read returned; null otherwise
 * @param token the body text of a write's record (unique per write), or null for reads and deletes
 * @param probe whether this call is the second half of a seeded delete-versus-edit probe, whose
 *     expected revision was already replaced by the first half
 */
public record Event(int writer, Call call, RecordKey key, Optional<Revision> expected, Outcome outcome,
    Record record, String token, boolean probe) {

  /** The calls a soak client records. */
  public enum Call { GET_RAW, GET, LIST, LIST_RAW, PUT, PUT_RAW, DELETE, PURGE }

  /** The answers a call can get. */
  public enum Outcome {
    /** a put or putRaw was written; {@link #record} is the stored record */
    COMMITTED,
    /** a delete wrote a tombstone ({@link #record}), or a purge removed the record */
    DELETED_WROTE,
    /** a delete or purge wrote nothing */
    DELETED_NOTHING,
    /** the expected revision did not match; {@link #record} is the current record */
    CONFLICT,
    /** a conditional write found nothing (or, on the consumer surface, a tombstone) */
    NOT_FOUND,
    /** a read returned {@link #record} */
    OBSERVED,
    /** a read found nothing */
    ABSENT,
    /** the call was sent and no answer came back: it may or may not have been applied */
    AMBIGUOUS
  }

  public Event {
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
    expected = expected == null ? Optional.empty() : expected;
  }

  /** Returns whether this is a write the store acknowledged as written. */
  public boolean acknowledgedWrite() {
    return outcome == Outcome.COMMITTED || (call == Call.DELETE && outcome == Outcome.DELETED_WROTE);
  }

  /** The unique body text of a record, or null for a tombstone or a blob body. */
  static String tokenOf(Record r) {
    if (r == null || r.isTombstone() || !(r.body() instanceof Body.Inline inline)) {
      return null;
    }
    return inline.text();
  }
}
