package dev.lethe.store.core.planner;

import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.lines.LineBase;
import dev.lethe.store.core.lines.Lines;
import java.util.List;
import java.util.Optional;

/**
 * Decides a consumer {@code put} (docs/design/0203-store-model.md "Consumer writes"): the store stamps
 * revision, parent, ancestors and times; a put with no expected revision over a tombstone is a
 * recreation, re-stamped newer than the delete; a put with an expected revision over a tombstone
 * is {@code NotFound}, because to a consumer the key is absent.
 */
public final class ConsumerPutPlanner {

  private ConsumerPutPlanner() {}

  /**
   * Checks a draft before any I/O.
   *
   * @throws IllegalArgumentException if the draft is a tombstone
   */
  public static void validate(Record draft) {
    if (draft.isTombstone()) {
      throw new IllegalArgumentException(
          "Cannot put " + draft.key() + ": kind tombstone is written only by delete");
    }
  }

  /**
   * Plans a consumer put.
   *
   * @param stored what the key holds now (raw), or empty
   * @param draft the caller's record; only key, kind, body, meta and links are kept
   * @param expected the revision the caller read, or empty for "must not exist"
   * @param nowMs the store's clock, ms since the epoch
   * @param cap the store's ancestor cap
   * @throws IllegalArgumentException if the draft is a tombstone
   */
  public static Plan<PutResult> plan(
      Optional<Record> stored, Record draft, Optional<Revision> expected, long nowMs, int cap) {
    validate(draft);
    if (stored.isEmpty()) {
      if (expected.isPresent()) {
        return new Plan.Reply<>(new NotFound());
      }
      return write(draft, null, nowMs, nowMs, cap);
    }
    Record current = stored.get();
    if (current.isTombstone()) {
      if (expected.isPresent()) {
        return new Plan.Reply<>(new NotFound());
      }
      // Recreation: newer than the delete and descending from it, a fresh record otherwise.
      return write(draft, current, nowMs, nowMs, cap);
    }
    if (expected.isEmpty() || !expected.get().equals(current.revision())) {
      return new Plan.Reply<>(new Conflict(current));
    }
    Long created = current.meta().created() != null ? current.meta().created() : nowMs;
    return write(draft, current, created, nowMs, cap);
  }

  private static Plan<PutResult> write(Record draft, Record base, long created, long updated, int cap) {
    long counter = base == null ? 1 : base.revision().counter() + 1;
    Revision rev = RevisionHash.revision(counter, draft.kind(), draft.body(), draft.meta(), draft.links());
    List<Revision> ancestors = base == null ? List.of() : Ancestry.after(base, rev, cap);
    // The line sets a later three-way merge needs (docs/design/0156-three-way-line-merge.md).
    List<LineBase> bases = Lines.after(draft.kind(), draft.body(), ancestors,
        base == null ? List.of() : List.of(base));
    Record stamped = new Record(draft.key(), draft.kind(), rev,
        base == null ? null : base.revision(), ancestors,
        draft.body(), draft.meta().withTimes(created, updated), null, null, draft.links(),
        FormatVersion.CURRENT, bases);
    return new Plan.Write<>(stamped, new Committed(stamped));
  }
}
