package dev.lethe.store.core.planner;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;

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

  /** Physically remove the record at {@code key}. */
  record Remove<R>(RecordKey key, R result) implements Plan<R> {}

  /** Change nothing. */
  record Reply<R>(R result) implements Plan<R> {}
}
