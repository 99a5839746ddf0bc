package dev.lethe.store.core.substrate;

import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.ancestry.Ancestry;
import dev.lethe.store.core.planner.ConsumerPutPlanner;
import dev.lethe.store.core.planner.DeletePlanner;
import dev.lethe.store.core.planner.Plan;
import dev.lethe.store.core.planner.PurgePlanner;
import dev.lethe.store.core.planner.RawPutPlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Store} over a substrate that can lock one key (DESIGN.md "Store / Substrates": fs,
 * git, jdbc, memory). Every write reads the stored record, asks the planner and applies its plan
 * inside the key's lock, so substrates only fetch and apply and behave alike by construction.
 * Reads must be atomic per key (a reader sees a whole version, never a torn one), which lets a
 * plan that writes nothing be answered from an unlocked read.
 * Substrates without a lock (S3) implement {@link Store} directly with conditional writes.
 */
public abstract class LockingStore implements Store {

  /** An action run while holding a key's lock. */
  @FunctionalInterface
  protected interface LockedAction<T> {
    /** Runs the action. */
    T run() throws IOException;
  }

  private final int ancestorCap;
  private final Clock clock;

  /**
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock the store's clock, used to stamp created, updated and deletedAt
   * @throws IllegalArgumentException "ancestor cap must be at least 1"
   */
  protected LockingStore(int ancestorCap, Clock clock) {
    this.ancestorCap = Ancestry.checkCap(ancestorCap);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Runs {@code action} holding the exclusive lock of {@code key}. */
  protected abstract <T> T locked(RecordKey key, LockedAction<T> action) throws IOException;

  /** Reads the record stored at {@code key}, tombstones included; empty when absent. */
  protected abstract Optional<Record> read(RecordKey key) throws IOException;

  /** Stores {@code record} at its key, atomically replacing what is there. Called under lock. */
  protected abstract void write(Record record) throws IOException;

  /** Physically removes the record at {@code key}. Called under lock. */
  protected abstract void remove(RecordKey key) throws IOException;

  /** Returns the keys stored under {@code prefix}, ordered. */
  protected abstract List<RecordKey> keys(KeyPrefix prefix) throws IOException;

  @Override
  public final int ancestorCap() {
    return ancestorCap;
  }

  /** Returns the store's clock. */
  protected final Clock clock() {
    return clock;
  }

  @Override
  public final Optional<Record> get(RecordKey key) {
    return getRaw(key).filter(r -> !r.isTombstone());
  }

  @Override
  public final List<Record> list(KeyPrefix prefix) {
    List<Record> out = new ArrayList<>();
    for (Record r : listRaw(prefix)) {
      if (!r.isTombstone()) {
        out.add(r);
      }
    }
    return out;
  }

  @Override
  public final PutResult put(Record record, Optional<Revision> expected) {
    ConsumerPutPlanner.validate(record);
    return apply(record.key(), stored ->
        ConsumerPutPlanner.plan(stored, record, expected, clock.millis(), ancestorCap));
  }

  @Override
  public final DeleteResult deleteAs(
      RecordKey key, Optional<Revision> expected, Optional<String> author) {
    return apply(key, stored ->
        DeletePlanner.plan(stored, expected, author, clock.millis(), ancestorCap));
  }

  @Override
  public final Optional<Record> getRaw(RecordKey key) {
    try {
      return read(key);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + key, e);
    }
  }

  @Override
  public final List<Record> listRaw(KeyPrefix prefix) {
    try {
      List<Record> out = new ArrayList<>();
      for (RecordKey key : keys(prefix)) {
        // A key purged between listing and reading is simply gone.
        read(key).ifPresent(out::add);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + prefix, e);
    }
  }

  @Override
  public final PutResult putRaw(Record record, Optional<Revision> expected) {
    return apply(record.key(), stored -> RawPutPlanner.plan(stored, record, expected, ancestorCap));
  }

  @Override
  public final DeleteResult purge(RecordKey key, Optional<Revision> expected) {
    return apply(key, stored -> PurgePlanner.plan(key, stored, expected));
  }

  private interface Planner<R> {
    Plan<R> plan(Optional<Record> stored);
  }

  private <R> R apply(RecordKey key, Planner<R> planner) {
    try {
      // A plan that writes nothing is valid at the moment of its (atomic) read, so it needs no
      // lock: a no-op delete of an absent key leaves no lock file behind, and a stale writer
      // learns of its conflict without queueing.
      Plan<R> unlocked = planner.plan(read(key));
      if (unlocked instanceof Plan.Reply<R> reply) {
        return reply.result();
      }
      return locked(key, () -> {
        Plan<R> plan = planner.plan(read(key));
        if (plan instanceof Plan.Write<R> w) {
          write(w.record());
        } else if (plan instanceof Plan.Remove<R> r) {
          remove(r.key());
        }
        return plan.result();
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + key, e);
    }
  }
}
