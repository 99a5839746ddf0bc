package dev.lethe.store.core.sync;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.sync.SyncAction.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Two-way sync of the keys under a prefix (docs/design/0107-streaming-sync.md). Reads and writes
 * only the replication surface: a copy goes through {@code putRaw(record, empty)}, so a delete
 * landing on the destination meanwhile is a {@code Conflict} that is re-planned with the
 * tombstone in view rather than a recreation. Blobs a written record refers to (its body or a
 * tombstone's pinned blob) are copied to the destination's blob store first, so no store ever
 * holds a record whose blob it lacks.
 *
 * <p>Both sides are walked together, page by page ({@link Store#listRawPage}), in key order: at
 * most one page of each side is in memory, whatever the namespace holds. Keyset pages return
 * every key that exists for the whole walk exactly once; a key created on one side during the
 * walk behind its cursor is left for the next sync, as it would be had it come after the sync.
 *
 * <p>Copies and fast-forwards planned on a key's first attempt are held per destination and
 * written {@value #BATCH_SIZE} at a time with {@link Store#putRawBatch}
 * (docs/design/0115-batched-raw-writes.md): the same conditional raw puts, fewer round trips and
 * transactions. An item that did not commit is re-planned from fresh reads, as a lost race is. A
 * batch is written by its destination's writer thread while the walk reads on
 * (docs/design/0109-fs-store-lock-file-and-parallel-batches.md, "Sync writes while it reads"): at
 * most one batch per destination is in flight and one held, and the run waits for every batch
 * before it returns, also when it fails.
 *
 * <p>Every record sync reads has proved its content (the stores' reads check it,
 * docs/design/0108-records-that-prove-their-content.md), and every blob it copies is checked
 * against its reference, so sync never copies a corrupt record or blob. A key where either side
 * holds one is reported in {@link SyncReport#corrupt} and stepped over: nothing is written for it
 * on either side (a store also refuses to write over a corrupt record), and the other keys are
 * synced as usual. A listing page fails only with the key right after its cursor
 * ({@link dev.lethe.store.core.RevisionHash#checkPage}), so stepping over it loses no other key. A
 * record that cannot be read at all (invalid JSON: the exception names no key) still stops the
 * run, because the walk cannot tell which keys it would skip.
 *
 * <p>A key one store cannot hold (its write or read throws {@link IllegalArgumentException}, as a
 * {@code file:} store does for the namespace {@code _blobs} or an id over 229 characters) is
 * reported as a {@link SyncConflict} whose reason starts with {@link #REFUSED}, nothing is written
 * for it, and the walk goes on.
 */
public final class Sync {

  /** Records per listed page of each side. */
  static final int PAGE_SIZE = Page.MAX_LIMIT;
  /** Writes held per destination before one {@link Store#putRawBatch}. */
  static final int BATCH_SIZE = 500;
  /**
   * Bytes of records held per destination before one {@link Store#putRawBatch}, whatever their
   * count ({@link #heldSize}), so big records never pile up in memory: the page budget.
   */
  static final long BATCH_BYTES = Page.MAX_BYTES;
  /** Starts the reason of a key a store refused to hold (its message follows). */
  public static final String REFUSED = "a store cannot hold this key: ";

  private Sync() {}

  /**
   * Syncs {@code a} and {@code b} under {@code prefix}. Progress is reported with a total of 0:
   * a streaming walk does not know how many keys follow.
   *
   * @throws java.io.UncheckedIOException on a store error; keys already handled stay written
   * @throws CorruptRecordException for a record that cannot be read at all (no key named); keys
   *     already handled stay written
   */
  public static SyncReport run(Store a, Store b, KeyPrefix prefix, SyncOptions options) {
    Map<RecordKey, SyncCorrupt> corrupt = new TreeMap<>();
    Cursor onA = new Cursor(a, prefix, "A", corrupt);
    Cursor onB = new Cursor(b, prefix, "B", corrupt);
    List<SyncConflict> conflicts = new ArrayList<>();
    Batches batches = new Batches(a, b);
    SyncLedger ledgers = new SyncLedger(a, b, prefix);
    SyncReport report;
    try {
      report = walk(a, b, onA, onB, batches, corrupt, conflicts, options, ledgers);
    } finally {
      batches.close();
    }
    ledgers.recordCompleted();
    return report;
  }

  private static SyncReport walk(Store a, Store b, Cursor onA, Cursor onB, Batches batches,
      Map<RecordKey, SyncCorrupt> corrupt, List<SyncConflict> conflicts, SyncOptions options,
      SyncLedger ledgers) {
    int copied = 0;
    int fastForwarded = 0;
    int merged = 0;
    long done = 0;
    while (batches.hasRetry() || onA.peek() != null || onB.peek() != null
        || batches.flushAll()) {
      // a key whose batched write did not commit is re-planned from fresh reads (attempt 2 on)
      boolean retry = batches.hasRetry();
      RecordKey key = retry ? batches.nextRetry() : first(onA.peek(), onB.peek());
      Optional<Record> ra = retry ? Optional.empty() : onA.takeIf(key);
      Optional<Record> rb = retry ? Optional.empty() : onB.takeIf(key);
      if (!corrupt.containsKey(key)) {
        try {
          switch (syncKey(a, b, key, ra, rb, retry ? 2 : 1, batches, options, conflicts, ledgers)) {
            case COPIED -> copied++;
            case FAST_FORWARDED -> fastForwarded++;
            case MERGED -> merged++;
            case RESTORED -> ledgers.restored++;
            case NOTHING, HELD -> { }
          }
        } catch (CorruptRecordException e) {
          corrupt.put(key, new SyncCorrupt(key, e.getMessage()));
        } catch (IllegalArgumentException e) {
          // a store that cannot hold the key (a file: store: namespace _blobs, an id over 229
          // characters) refuses it before writing anything; the key is reported, the walk goes on
          conflicts.add(new SyncConflict(key, REFUSED + e.getMessage()));
        }
      }
      if (!retry) {
        options.progress().update(++done, 0);
      }
    }
    copied += batches.copied;
    fastForwarded += batches.fastForwarded;
    return new SyncReport(copied, fastForwarded, merged, conflicts, List.copyOf(corrupt.values()),
        conflicts.isEmpty() && corrupt.isEmpty(), ledgers.restored);
  }

  /** What syncing one key did. */
  private enum Outcome { NOTHING, COPIED, FAST_FORWARDED, MERGED, HELD, RESTORED }

  /**
   * Syncs one key, re-reading and re-planning after a write that lost a race; adds a conflict to
   * {@code conflicts} if it has one.
   *
   * @throws CorruptRecordException if a side's record at {@code key} is corrupt
   */
  private static Outcome syncKey(Store a, Store b, RecordKey key, Optional<Record> ra, Optional<Record> rb,
      int firstAttempt, Batches batches, SyncOptions options, List<SyncConflict> conflicts,
      SyncLedger ledgers) {
    for (int attempt = firstAttempt; attempt <= options.maxAttempts(); attempt++) {
      if (attempt > 1) {
        ra = a.getRaw(key);
        rb = b.getRaw(key);
      }
      if (ra.isEmpty() != rb.isEmpty()) {
        // a key one side lacks: did that side collect its delete? (docs/design/0152-sync-restores-collected-tombstones.md)
        RestorePlanner.Restoration r = RestorePlanner.plan(ra, rb,
            ra.isEmpty() ? ledgers.onA(key) : Optional.empty(), rb.isEmpty() ? ledgers.onB(key) : Optional.empty());
        if (r instanceof RestorePlanner.Refuse refuse) {
          conflicts.add(new SyncConflict(key, refuse.reason()));
          return Outcome.NOTHING;
        }
        if (r instanceof RestorePlanner.Restore restore) {
          Store holder = restore.to() == Side.A ? a : b;
          Store other = restore.to() == Side.A ? b : a;
          if (write(other, holder, restore.tombstone(), Optional.empty())
              && write(holder, other, restore.tombstone(), Optional.of(restore.peerRevision()))) {
            return Outcome.RESTORED;
          }
          continue; // a race: re-read both sides and plan again
        }
      }
      SyncAction action = SyncPlanner.plan(ra, rb);
      if (action instanceof SyncAction.InSync) {
        return Outcome.NOTHING;
      } else if (action instanceof SyncAction.Diverged d) {
        conflicts.add(new SyncConflict(key, d.reason()));
        return Outcome.NOTHING;
      } else if (action instanceof SyncAction.Copy c) {
        if (attempt == 1) {
          // held for a batch (docs/design/0115-batched-raw-writes.md), counted when it commits
          batches.defer(c.to() == Side.A ? b : a, c.to() == Side.A ? a : b, c.record(), Optional.empty(), true);
          return Outcome.HELD;
        }
        if (write(c.to() == Side.A ? b : a, c.to() == Side.A ? a : b, c.record(), Optional.empty())) {
          return Outcome.COPIED;
        }
      } else if (action instanceof SyncAction.FastForward f) {
        if (attempt == 1) {
          batches.defer(f.to() == Side.A ? b : a, f.to() == Side.A ? a : b, f.record(), Optional.of(f.expected()), false);
          return Outcome.HELD;
        }
        if (write(f.to() == Side.A ? b : a, f.to() == Side.A ? a : b, f.record(),
            Optional.of(f.expected()))) {
          return Outcome.FAST_FORWARDED;
        }
      } else if (action instanceof SyncAction.Merge m) {
        // Both writes are attempted; if one loses a race the next pass sees the merged side.
        boolean wa = write(b, a, m.merged(), Optional.of(m.expectedA()));
        boolean wb = write(a, b, m.merged(), Optional.of(m.expectedB()));
        if (wa && wb) {
          return Outcome.MERGED;
        }
      }
    }
    conflicts.add(new SyncConflict(key, "still changing after " + options.maxAttempts() + " attempts"));
    return Outcome.NOTHING;
  }

  private static RecordKey first(Record x, Record y) {
    if (x == null) {
      return y.key();
    }
    if (y == null) {
      return x.key();
    }
    return x.key().compareTo(y.key()) <= 0 ? x.key() : y.key();
  }

  /** One side's raw listing, read a page at a time, stepping over corrupt records. */
  private static final class Cursor {
    private final Store store;
    private final KeyPrefix prefix;
    private final String side;
    private final Map<RecordKey, SyncCorrupt> corrupt;
    private List<Record> page = List.of();
    private int index;
    private Optional<RecordKey> after = Optional.empty();
    private boolean last;

    Cursor(Store store, KeyPrefix prefix, String side, Map<RecordKey, SyncCorrupt> corrupt) {
      this.store = store;
      this.prefix = prefix;
      this.side = side;
      this.corrupt = corrupt;
    }

    /** The next sound record in key order, or null at the end. */
    Record peek() {
      while (index == page.size() && !last) {
        Page p;
        try {
          p = store.listRawPage(prefix, after, PAGE_SIZE);
        } catch (CorruptRecordException e) {
          RecordKey bad = e.key().orElseThrow(() -> e);
          if (after.isPresent() && bad.compareTo(after.get()) <= 0) {
            throw e; // not the key right after the cursor: stepping over it could skip others
          }
          corrupt.put(bad, new SyncCorrupt(bad, "on " + side + ": " + e.getMessage()));
          page = List.of();
          index = 0;
          after = Optional.of(bad);
          continue;
        }
        page = p.records();
        index = 0;
        after = p.next();
        last = p.next().isEmpty();
      }
      return index < page.size() ? page.get(index) : null;
    }

    /** Consumes the next record if it is at {@code key}. */
    Optional<Record> takeIf(RecordKey key) {
      Record r = peek();
      if (r != null && r.key().equals(key)) {
        index++;
        return Optional.of(r);
      }
      return Optional.empty();
    }
  }

  /**
   * Copies and fast-forwards planned on a first attempt, held per destination and written with
   * {@link Store#putRawBatch} (docs/design/0115-batched-raw-writes.md): a batch of writes costs one
   * request to a server and one transaction per chunk in a database. Each item is the same
   * conditional raw put the per-key path makes, its blobs copied before it is held. A committed
   * item is counted; any other answer puts its key on the retry queue, which the walk drains
   * before its next key, re-planning from fresh reads exactly as a lost race is.
   */
  private static final class Batches {
    private final Store a;
    private final Store b;
    private final List<Pending> toA = new ArrayList<>();
    private final List<Pending> toB = new ArrayList<>();
    private final java.util.ArrayDeque<RecordKey> retries = new java.util.ArrayDeque<>();
    private long heldToA;
    private long heldToB;
    private InFlight inFlightA;
    private InFlight inFlightB;
    private ExecutorService writerA;
    private ExecutorService writerB;
    int copied;
    int fastForwarded;

    private record Pending(RawPut put, boolean copy) {}

    /** A batch handed to a destination's writer; its results are null when refused as a whole. */
    private record InFlight(List<Pending> items, Future<List<PutResult>> results) {}

    Batches(Store a, Store b) {
      this.a = a;
      this.b = b;
    }

    /** Copies the record's blobs, holds its write for {@code to}, and flushes a full batch; true. */
    boolean defer(Store from, Store to, Record record, Optional<Revision> expected, boolean copy) {
      copyBlobs(from, to, record);
      List<Pending> pending = to == a ? toA : toB;
      pending.add(new Pending(new RawPut(record, expected), copy));
      long held = to == a ? (heldToA += heldSize(record)) : (heldToB += heldSize(record));
      if (pending.size() >= BATCH_SIZE || held >= BATCH_BYTES) {
        flush(to, pending);
      }
      return true;
    }

    boolean hasRetry() {
      return !retries.isEmpty();
    }

    RecordKey nextRetry() {
      return retries.poll();
    }

    /** Writes everything held and waits for it; true when that queued keys to retry. */
    boolean flushAll() {
      flush(a, toA);
      flush(b, toB);
      collect(a);
      collect(b);
      return hasRetry();
    }

    private void flush(Store to, List<Pending> pending) {
      if (to == a) {
        heldToA = 0;
      } else {
        heldToB = 0;
      }
      if (pending.isEmpty()) {
        return;
      }
      collect(to); // at most one batch per destination in flight
      List<Pending> items = List.copyOf(pending);
      pending.clear();
      InFlight written = new InFlight(items, writer(to).submit(() -> write(to, items)));
      if (to == a) {
        inFlightA = written;
      } else {
        inFlightB = written;
      }
    }

    /** Writes a batch on the destination's writer; null when the store refused it as a whole. */
    private static List<PutResult> write(Store to, List<Pending> items) {
      try {
        return to.putRawBatch(items.stream().map(Pending::put).toList());
      } catch (CorruptRecordException | IllegalArgumentException e) {
        // a store refuses to write over a corrupt record, or an item whose key it cannot hold:
        // each held key is re-run on its own, so only that key is stepped over and reported
        return null;
      }
    }

    /** Waits for the batch in flight to {@code to}, counts what committed and queues the rest. */
    private void collect(Store to) {
      InFlight written = to == a ? inFlightA : inFlightB;
      if (written == null) {
        return;
      }
      if (to == a) {
        inFlightA = null;
      } else {
        inFlightB = null;
      }
      List<PutResult> results;
      try {
        results = written.results().get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException re) {
          throw re;
        }
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while writing a batch", e);
      }
      List<Pending> items = written.items();
      for (int i = 0; i < items.size(); i++) {
        Pending p = items.get(i);
        if (results != null && results.get(i) instanceof Committed) {
          if (p.copy()) {
            copied++;
          } else {
            fastForwarded++;
          }
        } else {
          retries.add(p.put().record().key());
        }
      }
    }

    private ExecutorService writer(Store to) {
      if (to == a) {
        return writerA == null ? (writerA = newWriter()) : writerA;
      }
      return writerB == null ? (writerB = newWriter()) : writerB;
    }

    private static ExecutorService newWriter() {
      return Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "lethe-sync-writer");
        t.setDaemon(true);
        return t;
      });
    }

    /** Waits for the batches in flight (their outcome no longer matters) and ends the writers. */
    void close() {
      for (InFlight w : new InFlight[] {inFlightA, inFlightB}) {
        if (w != null) {
          try {
            w.results().get();
          } catch (ExecutionException e) {
            // the walk already failed; the batch's own failure changes nothing
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
      for (ExecutorService w : new ExecutorService[] {writerA, writerB}) {
        if (w != null) {
          w.shutdown();
        }
      }
    }
  }

  /**
   * What holding {@code record} costs, in bytes, without encoding it: its inline body (at most
   * twice over as JSON text), a kilobyte for its key, meta, links and ancestors, and its bases
   * (docs/design/0156-three-way-line-merge.md). Only decides when a batch is written, never what
   * is written.
   */
  static long heldSize(Record record) {
    long body = record.body() instanceof Body.Inline inline ? 2L * inline.length() : 0;
    long bases = 0;
    for (dev.lethe.store.core.lines.LineBase b : record.bases()) {
      bases += 256 + 16L * b.without().size();
      for (String line : b.with()) {
        bases += 2L * line.length() + 8;
      }
    }
    return body + 1024 + 100L * record.ancestors().size() + bases;
  }

  /** Copies {@code record}'s blobs from {@code from} to {@code to}, then puts it raw on {@code to}. */
  private static boolean write(Store from, Store to, Record record, Optional<Revision> expected) {
    copyBlobs(from, to, record);
    PutResult r = to.putRaw(record, expected);
    return r instanceof Committed;
  }

  /** Copies {@code record}'s blobs that {@code to} lacks from {@code from}. */
  private static void copyBlobs(Store from, Store to, Record record) {
    for (String hash : record.referencedBlobs()) {
      if (!to.blobs().contains(hash)) {
        byte[] content = from.blobs().get(hash).orElseThrow(() -> new IllegalStateException(
            "Cannot sync " + record.key() + ": blob " + hash + " is missing from its source store"));
        Body.Blob ref = record.body() instanceof Body.Blob b && b.hash().equals(hash)
            ? b : new Body.Blob(hash, content.length);
        RevisionHash.blobProblem(ref, content).ifPresent(p -> {
          throw new CorruptRecordException(record.key(), "blob store of " + from, p);
        });
        to.blobs().put(content);
      }
    }
  }

}
