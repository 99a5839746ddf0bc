package dev.lethe.store.core.planner;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.ledger.PurgeEntry;

/**
 * What a substrate must do for one call, decided by a planner from what is stored. Substrates
 * apply a plan inside their critical section and return its result.
 *
 * @param <R> the result type returned to the caller
 */
public sealed interface Plan<R> permits Plan.Write, Plan.Remove, Plan.Reply {

  /** The result to return once the plan is applied. */
  R result();

  /** Store {@code record} at its key, replacing what is there. */
  record Write<R>(Record record, R result) implements Plan<R> {}

  /**
   * Physically remove the record at {@code key}; when {@code logged} is not null, append it to
   * the store's purge log first (docs/design/0151-purge-log.md), in the same transaction where
   * the substrate has one.
   */
  record Remove<R>(RecordKey key, PurgeEntry logged, R result) implements Plan<R> {}

  /** Change nothing. */
  record Reply<R>(R result) implements Plan<R> {}
}
