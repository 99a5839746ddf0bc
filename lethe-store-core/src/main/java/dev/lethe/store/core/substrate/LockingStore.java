package dev.lethe.store.core.substrate;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.planner.Plan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link PlannedStore} over a substrate that can lock one key (docs/design/0203-store-model.md "Substrates":
 * fs, git, memory). Every write reads the stored record, asks the planner and applies its plan
 * inside the key's lock, so substrates only fetch and apply and behave alike by construction.
 * Reads must be atomic per key (a reader sees a whole version, never a torn one), which lets a
 * plan that writes nothing be answered from an unlocked read.
 * Substrates without a lock (S3) implement {@link dev.lethe.store.core.Store} directly with
 * conditional writes; transactional ones (jdbc) extend {@link PlannedStore}.
 */
public abstract class LockingStore extends PlannedStore {

  /** An action run while holding a key's lock. */
  @FunctionalInterface
  protected interface LockedAction<T> {
    /** Runs the action. */
    T run() throws IOException;
  }

  /**
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock the store's clock, used to stamp created, updated and deletedAt
   * @throws IllegalArgumentException "ancestor cap must be at least 1"
   */
  protected LockingStore(int ancestorCap, Clock clock) {
    super(ancestorCap, clock);
  }

  /** Runs {@code action} holding the exclusive lock of {@code key}. */
  protected abstract <T> T locked(RecordKey key, LockedAction<T> action) throws IOException;

  /** Stores {@code record} at its key, atomically replacing what is there. Called under lock. */
  protected abstract void write(Record record) throws IOException;

  /** Physically removes the record at {@code key}. Called under lock. */
  protected abstract void remove(RecordKey key) throws IOException;

  /**
   * Returns up to {@code limit} keys stored under {@code prefix} strictly after {@code after}, in
   * key order, reading no more of the substrate than it needs to find them.
   *
   * @param after the key to start after, or null to start at the beginning
   * @param limit at least 1
   */
  protected abstract List<RecordKey> keysAfter(KeyPrefix prefix, RecordKey after, int limit)
      throws IOException;

  @Override
  protected final List<Record> scan(
      KeyPrefix prefix, RecordKey after, int limit, long maxBytes, boolean liveOnly) throws IOException {
    List<Record> out = new ArrayList<>();
    long total = 0;
    RecordKey cursor = after;
    while (true) {
      List<RecordKey> keys = keysAfter(prefix, cursor, limit);
      for (RecordKey key : keys) {
        // A key purged between listing and reading is simply gone.
        Optional<Record> r = read(key);
        if (r.isPresent() && !(liveOnly && r.get().isTombstone())) {
          // Records are read one at a time, so the scan holds at most the budget plus one record.
          out.add(r.get());
          total += Page.sizeOf(r.get());
          if (out.size() == limit || total >= maxBytes) {
            return out;
          }
        }
      }
      if (keys.size() < limit) {
        return out;
      }
      cursor = keys.get(keys.size() - 1);
    }
  }

  @Override
  protected final <R> R apply(RecordKey key, Planner<R> planner) {
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
          if (r.logged() != null) {
            ledger().appendPurged(r.logged()); // before the removal (docs/design/0151-purge-log.md)
          }
          remove(r.key());
        }
        return plan.result();
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + key, e);
    }
  }
}
