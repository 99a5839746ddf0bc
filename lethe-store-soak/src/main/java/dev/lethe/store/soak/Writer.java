package dev.lethe.store.soak;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.reset.Reset;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One writer: a seeded random mix of creates, edits with the expected revision, deletes,
 * recreations, probes, write-once creates, collected lifecycles, resets and syncs through the
 * client-side stores (docs/design/0145-ha-soak.md "Keys"). Its choices depend on the seed only;
 * what the store answers decides what happens next.
 */
final class Writer implements Runnable {
  static final int MAIN_KEYS = 12;
  static final int SYNC_KEYS = 6;
  /** A collected tombstone is at least this old. */
  static final Duration HORIZON = Duration.ofSeconds(1);

  private final int id;
  private final String namespace;
  private final Client client;
  private final List<Store> locals;
  private final Random rng;
  private final BooleanSupplier stop;
  private final Consumer<RuntimeException> onError;
  private int n;

  Writer(int id, String namespace, Client client, List<Store> locals, long seed, BooleanSupplier stop,
      Consumer<RuntimeException> onError) {
    this.id = id;
    this.namespace = namespace;
    this.client = client;
    this.locals = locals;
    this.rng = new Random(seed * 1_000_003L + id);
    this.stop = stop;
    this.onError = onError;
  }

  @Override
  public void run() {
    // the first call of every writer is a probe, so that a run of any length meets delete-versus-edit
    boolean first = true;
    while (!stop.getAsBoolean()) {
      int dice = first ? 60 : rng.nextInt(100);
      first = false;
      try {
        step(dice);
      } catch (RuntimeException e) {
        // a call that no replica answered within the retry limit, or a store error: counted, and the writer goes on
        onError.accept(e);
      }
    }
  }

  private void step(int dice) {
    if (dice < 40) {
      edit();
    } else if (dice < 55) {
      delete();
    } else if (dice < 63) {
      probe();
    } else if (dice < 73) {
      once();
    } else if (dice < 80) {
      lifecycle();
    } else if (dice < 97) {
      sync();
    } else {
      client.call(s -> Reset.run(s, KeyPrefix.collection(namespace, Oracle.MAIN), Optional.of(author()), Progress.NONE));
    }
  }

  private String author() {
    return "writer-" + id;
  }

  private Record draft(RecordKey key) {
    // the body is unique per write: the oracle follows a write by it
    return Record.draft(key, Kind.DOCUMENT, Body.Inline.text("w" + id + "-" + (n++) + "-" + rng.nextLong()), Meta.byAuthor(author()));
  }

  private RecordKey main() {
    return new RecordKey(namespace, Oracle.MAIN, "k" + rng.nextInt(MAIN_KEYS));
  }

  /** Create, edit on the revision read, or recreate over a tombstone. */
  private void edit() {
    RecordKey key = main();
    Record draft = draft(key);
    Optional<Record> now = client.call(s -> s.getRaw(key));
    Optional<Revision> expected = now.filter(r -> !r.isTombstone()).map(Record::revision);
    client.call(s -> s.put(draft, expected));
  }

  private void delete() {
    RecordKey key = main();
    Optional<Record> now = client.call(s -> s.getRaw(key));
    if (now.isPresent() && !now.get().isTombstone()) {
      client.call(s -> s.deleteAs(key, Optional.of(now.get().revision()), Optional.of(author())));
    }
  }

  /**
   * Edit then delete on the same revision, or delete then edit: the second half's expected
   * revision is stale whatever the other writers do, so it must be refused.
   */
  private void probe() {
    RecordKey key = main();
    boolean deleteFirst = rng.nextBoolean();
    Record made = draft(key);
    Record first = draft(key);
    Record second = draft(key);
    Optional<Record> now = client.call(s -> s.getRaw(key));
    Revision base;
    if (now.isPresent() && !now.get().isTombstone()) {
      base = now.get().revision();
    } else {
      PutResult created = client.call(s -> s.put(made, Optional.empty()));
      if (!(created instanceof Committed c)) {
        return;
      }
      base = c.record().revision();
    }
    if (deleteFirst) {
      client.call(s -> s.deleteAs(key, Optional.of(base), Optional.of(author())));
      client.probe(s -> s.put(second, Optional.of(base)));
    } else {
      client.call(s -> s.put(first, Optional.of(base)));
      client.probe(s -> s.deleteAs(key, Optional.of(base), Optional.of(author())));
    }
  }

  private void once() {
    RecordKey key = new RecordKey(namespace, Oracle.ONCE, "w" + id + "-" + n);
    Record draft = draft(key);
    client.call(s -> s.put(draft, Optional.empty()));
  }

  /** Create, delete, and collect the tombstones at least {@link #HORIZON} old. */
  private void lifecycle() {
    RecordKey key = new RecordKey(namespace, Oracle.GC, "w" + id + "-" + n);
    Record draft = draft(key);
    PutResult made = client.call(s -> s.put(draft, Optional.empty()));
    if (made instanceof Committed c) {
      client.call(s -> s.deleteAs(key, Optional.of(c.record().revision()), Optional.of(author())));
    }
    if (rng.nextInt(3) == 0) {
      client.call(s -> Collect.run(s, KeyPrefix.collection(namespace, Oracle.GC), HORIZON, Clock.systemUTC(), Progress.NONE));
    }
  }

  /** An edit or a delete in one client-side store, then a sync of it with a replica. */
  private void sync() {
    Store local = locals.get(rng.nextInt(locals.size()));
    RecordKey key = new RecordKey(namespace, Oracle.SYNC, "s" + rng.nextInt(SYNC_KEYS));
    Record draft = draft(key);
    boolean delete = rng.nextInt(5) == 0;
    synchronized (local) {
      Optional<Record> now = local.getRaw(key);
      if (now.isPresent() && !now.get().isTombstone()) {
        if (delete) {
          local.deleteAs(key, Optional.of(now.get().revision()), Optional.of(author()));
        } else {
          local.put(draft, Optional.of(now.get().revision()));
        }
      } else {
        local.put(draft, Optional.empty());
      }
      client.call(s -> Sync.run(local, s, KeyPrefix.collection(namespace, Oracle.SYNC), SyncOptions.DEFAULTS));
    }
  }
}
