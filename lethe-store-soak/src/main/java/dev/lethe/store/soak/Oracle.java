package dev.lethe.store.soak;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.soak.Event.Call;
import dev.lethe.store.soak.Event.Outcome;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The soak's oracle: a pure function from a recorded history and the replicas' final answers to a
 * count per {@link Row} (docs/design/0145-ha-soak.md "Oracle"). No I/O; the same input gives the
 * same verdict.
 */
public final class Oracle {

  /** Contended keys: edits, deletes, recreations, probes, resets; never purged. */
  public static final String MAIN = "main";
  /** Write-once keys, one create each. */
  public static final String ONCE = "once";
  /** Keys created once, deleted, then collected with a horizon; never recreated. */
  public static final String GC = "gc";
  /** Keys written through two client-side stores and sync; never purged. */
  public static final String SYNC = "sync";

  private static final int EXAMPLES = 20;

  private Oracle() {}

  /**
   * The verdict.
   *
   * @param counts one count per row, every row present
   * @param info further counts that are not violations (acknowledged writes, ambiguous calls, …)
   * @param examples the first violations found, one line each, for a reader of a failed run
   */
  public record Verdict(Map<Row, Long> counts, Map<String, Long> info, List<String> examples) {
    /** Returns whether every row is 0. */
    public boolean passed() {
      return counts.values().stream().allMatch(c -> c == 0);
    }
  }

  /**
   * Judges a run.
   *
   * @param history every call the clients made, in any order
   * @param end the replicas' answers after the quiet period
   * @param facts the run's shape
   * @return the verdict, never null
   */
  public static Verdict judge(List<Event> history, FinalState end, RunFacts facts) {
    Map<Row, Long> counts = new EnumMap<>(Row.class);
    for (Row row : Row.values()) {
      counts.put(row, 0L);
    }
    List<String> examples = new ArrayList<>();
    Map<RecordKey, Map<Revision, Set<Revision>>> edges = edges(history, end);
    Map<RecordKey, Record> first = end.raw().get(0);

    // what each key's final record on the first replica descends from; the others are compared below
    Map<RecordKey, Set<Revision>> lineages = new HashMap<>();
    for (Map.Entry<RecordKey, Record> e : first.entrySet()) {
      lineages.put(e.getKey(), lineage(e.getValue(), edges.getOrDefault(e.getKey(), Map.of())));
    }

    for (Event e : history) {
      if (!e.acknowledgedWrite() || e.record() == null) {
        continue;
      }
      String collection = e.key().collection();
      Record fin = first.get(e.key());
      if (collection.equals(GC)) {
        if (e.call() == Call.DELETE && end.raw().stream().map(m -> m.get(e.key())).anyMatch(r -> r != null && !r.isTombstone())) {
          bump(counts, examples, Row.AckedDeleteLost, e.key() + ": deleted, collected, and live again");
        }
        continue;
      }
      if (collection.equals(ONCE)) {
        for (int i = 0; i < end.raw().size(); i++) {
          Record r = end.raw().get(i).get(e.key());
          if (r == null || !r.revision().equals(e.record().revision())) {
            bump(counts, examples, Row.UniqueWriteLost, e.key() + ": written as " + e.record().revision()
                + ", replica " + i + " answers " + (r == null ? "nothing" : r.revision()));
            break;
          }
        }
        continue;
      }
      if (missing(e.record(), fin, lineages.get(e.key()))) {
        Row row = e.record().isTombstone() ? Row.AckedDeleteLost : Row.LostUpdate;
        bump(counts, examples, row, e.key() + ": " + e.call() + " acknowledged " + e.record().revision()
            + ", the final record is " + (fin == null ? "absent" : fin.revision() + (fin.isTombstone() ? " (tombstone)" : "")));
      }
    }

    duplicates(history, end, edges, counts, examples);
    staleBases(history, counts, examples);
    endState(end, counts, examples);

    long deleteConflicts = history.stream().filter(Oracle::deleteVersusEdit).count();
    if (deleteConflicts == 0) {
      bump(counts, examples, Row.NoDeleteConflictsObserved, "no delete-versus-edit conflict in " + history.size() + " calls");
    }
    Set<Integer> progressed = new HashSet<>();
    for (Event e : history) {
      if (e.acknowledgedWrite()) {
        progressed.add(e.writer());
      }
    }
    for (int w = 0; w < facts.writers(); w++) {
      if (!progressed.contains(w)) {
        bump(counts, examples, Row.NoProgress, "writer " + w + " got no write acknowledged");
      }
    }
    if (facts.chaos() && facts.servingKills() < facts.servingKillsRequired()) {
      bump(counts, examples, Row.NoProgress, "the chaos loop killed " + facts.servingKills() + " serving replica(s) ("
          + facts.kills() + " kills); a run this long must kill at least " + facts.servingKillsRequired());
    }
    return new Verdict(counts, info(history, end, deleteConflicts), List.copyOf(examples));
  }

  /**
   * Whether an acknowledged record is absent from the final lineage. A lineage whose known edges do
   * not reach down to the record's counter proves nothing either way and is not counted.
   */
  private static boolean missing(Record acked, Record fin, Set<Revision> lineage) {
    Revision rev = acked.revision();
    if (fin == null || fin.revision().counter() < rev.counter()) {
      return true;
    }
    if (lineage.contains(rev)) {
      return false;
    }
    return lineage.stream().anyMatch(r -> r.counter() <= rev.counter());
  }

  /**
   * Child → parents edges per key, from every record the clients saw and the final answers, and
   * from every acknowledged raw write to the revision it replaced. A tombstone revision depends only
   * on the counter it deletes, so two tombstones of two lines can be one revision with two parents;
   * sync treats them as one record, and so does the lineage.
   */
  static Map<RecordKey, Map<Revision, Set<Revision>>> edges(List<Event> history, FinalState end) {
    Map<RecordKey, Map<Revision, Set<Revision>>> edges = new HashMap<>();
    for (Event e : history) {
      addEdges(edges, e.record());
      if (e.call() == Call.PUT_RAW && e.outcome() == Outcome.COMMITTED && e.expected().isPresent()) {
        // a raw write replaced the expected revision: a tombstone over another line's tombstone
        // (sync's tombstone-versus-tombstone rule) continues that line too
        edges.computeIfAbsent(e.key(), k -> new HashMap<>()).computeIfAbsent(e.record().revision(), r -> new HashSet<>())
            .add(e.expected().get());
      }
    }
    for (Map<RecordKey, Record> replica : end.raw()) {
      replica.values().forEach(r -> addEdges(edges, r));
    }
    return edges;
  }

  private static void addEdges(Map<RecordKey, Map<Revision, Set<Revision>>> edges, Record r) {
    if (r == null) {
      return;
    }
    Map<Revision, Set<Revision>> of = edges.computeIfAbsent(r.key(), k -> new HashMap<>());
    Revision child = r.revision();
    List<Revision> chain = new ArrayList<>();
    if (r.parent() != null) {
      chain.add(r.parent());
    }
    for (Revision a : r.ancestors()) {
      if (chain.isEmpty() || !chain.get(chain.size() - 1).equals(a)) {
        chain.add(a);
      }
    }
    for (Revision parent : chain) {
      of.computeIfAbsent(child, c -> new HashSet<>()).add(parent);
      child = parent;
    }
  }

  /** Every revision a final record descends from, as far as known edges reach. */
  static Set<Revision> lineage(Record fin, Map<Revision, Set<Revision>> edges) {
    Set<Revision> seen = new HashSet<>();
    List<Revision> todo = new ArrayList<>(List.of(fin.revision()));
    while (!todo.isEmpty()) {
      Revision cur = todo.remove(todo.size() - 1);
      if (seen.add(cur)) {
        todo.addAll(edges.getOrDefault(cur, Set.of()));
      }
    }
    return seen;
  }

  /**
   * One token stored as several revisions. A later revision is not a duplicate when it recreates the
   * key over a tombstone that descends from the earlier one: a retried recreate (sent with no
   * expected revision) applies again once another writer deleted its first application, as the
   * store's contract says it must (docs/design/0145-ha-soak.md "Ambiguous acknowledgements").
   */
  private static void duplicates(List<Event> history, FinalState end, Map<RecordKey, Map<Revision, Set<Revision>>> edges,
      Map<Row, Long> counts, List<String> examples) {
    Map<String, TreeMap<Revision, Record>> byToken = new TreeMap<>();
    Map<RecordKey, Set<Revision>> tombstones = new HashMap<>();
    List<Record> seen = new ArrayList<>();
    history.stream().map(Event::record).filter(Objects::nonNull).forEach(seen::add);
    end.raw().forEach(m -> seen.addAll(m.values()));
    for (Record r : seen) {
      if (r.isTombstone()) {
        tombstones.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.revision());
      }
      String token = Event.tokenOf(r);
      if (token != null) {
        byToken.computeIfAbsent(r.key() + " " + token, t -> new TreeMap<>()).putIfAbsent(r.revision(), r);
      }
    }
    byToken.forEach((token, records) -> {
      Record earlier = null;
      for (Record r : records.values()) {
        if (earlier != null && !recreatedAfterDelete(r, earlier, edges.getOrDefault(r.key(), Map.of()),
            tombstones.getOrDefault(r.key(), Set.of()))) {
          bump(counts, examples, Row.DuplicateUpdate, token + " stored as " + records.keySet());
        }
        earlier = r;
      }
    });
  }

  /** Whether {@code later} was written over a tombstone whose lineage holds {@code earlier}. */
  static boolean recreatedAfterDelete(Record later, Record earlier, Map<Revision, Set<Revision>> edges, Set<Revision> tombstones) {
    Revision parent = later.parent();
    if (parent == null || !tombstones.contains(parent)) {
      return false;
    }
    Set<Revision> seen = new HashSet<>();
    List<Revision> todo = new ArrayList<>(List.of(parent));
    while (!todo.isEmpty()) {
      Revision cur = todo.remove(todo.size() - 1);
      if (cur.equals(earlier.revision())) {
        return true;
      }
      if (seen.add(cur)) {
        todo.addAll(edges.getOrDefault(cur, Set.of()));
      }
    }
    return false;
  }

  /**
   * The revision an acknowledged write was decided against: the expected revision sent, or for a
   * write that sent none (a create, a recreation, an unconditional delete) the record's parent.
   */
  static Optional<Revision> base(Event e) {
    if (e.expected().isPresent() || e.call() == Call.PUT_RAW) {
      return e.expected();
    }
    return Optional.ofNullable(e.record().parent());
  }

  private static void staleBases(List<Event> history, Map<Row, Long> counts, List<String> examples) {
    Map<String, Set<Revision>> byBase = new LinkedHashMap<>();
    for (Event e : history) {
      if (!e.acknowledgedWrite() || e.record() == null || e.key().collection().equals(GC)) {
        continue;
      }
      Optional<Revision> base = base(e);
      if (e.call() != Call.PUT_RAW && base.isPresent() && !base.get().equals(e.record().parent())) {
        bump(counts, examples, Row.StaleBaseCommitted, e.key() + ": " + e.call() + " on " + base.get()
            + " acknowledged as " + e.record().revision() + " over " + e.record().parent());
      }
      String key = e.key() + " on " + base.map(Revision::toString).orElse("nothing");
      byBase.computeIfAbsent(key, b -> new TreeSet<>()).add(e.record().revision());
    }
    byBase.forEach((base, revisions) -> {
      for (int i = 1; i < revisions.size(); i++) {
        bump(counts, examples, Row.StaleBaseCommitted, base + ": " + revisions + " all acknowledged");
      }
    });
  }

  private static void endState(FinalState end, Map<Row, Long> counts, List<String> examples) {
    Set<RecordKey> keys = new TreeSet<>();
    end.raw().forEach(m -> keys.addAll(m.keySet()));
    end.consumer().forEach(m -> keys.addAll(m.keySet()));
    for (RecordKey k : keys) {
      Record on0 = end.raw().get(0).get(k);
      for (int i = 1; i < end.raw().size(); i++) {
        if (!Objects.equals(on0, end.raw().get(i).get(k))) {
          bump(counts, examples, Row.ReplicasDisagree, k + ": replica 0 and replica " + i + " answer different raw records");
          break;
        }
      }
      for (int i = 0; i < end.raw().size(); i++) {
        Record raw = end.raw().get(i).get(k);
        Record consumer = end.consumer().get(i).get(k);
        if (raw != null && mixed(raw) || consumer != null && consumer.isTombstone()) {
          bump(counts, examples, Row.MixedLiveAndTombstone, k + " on replica " + i + " is half live, half tombstone");
        }
        Revision want = raw == null || raw.isTombstone() ? null : raw.revision();
        Revision got = consumer == null ? null : consumer.revision();
        if (!Objects.equals(want, got)) {
          bump(counts, examples, Row.ConsumerRawMismatch, k + " on replica " + i + ": raw says " + want + ", consumer says " + got);
        }
      }
    }
  }

  /** A tombstone with a body or without a deletion time, or a live record with one. */
  static boolean mixed(Record r) {
    if (r.isTombstone()) {
      return r.deletedAt() == null || !(r.body() instanceof dev.lethe.store.core.Body.Inline i) || i.length() > 0;
    }
    return r.deletedAt() != null;
  }

  /** A delete refused because the record was edited, or an edit refused because it was deleted. */
  static boolean deleteVersusEdit(Event e) {
    if (e.call() == Call.DELETE && e.outcome() == Outcome.CONFLICT) {
      return true;
    }
    return e.call() == Call.PUT && e.expected().isPresent()
        && (e.outcome() == Outcome.NOT_FOUND || e.outcome() == Outcome.CONFLICT && e.record() != null && e.record().isTombstone());
  }

  private static Map<String, Long> info(List<Event> history, FinalState end, long deleteConflicts) {
    Set<String> tokensSeen = new HashSet<>();
    history.stream().map(Event::record).map(Event::tokenOf).filter(Objects::nonNull).forEach(tokensSeen::add);
    end.raw().forEach(m -> m.values().stream().map(Event::tokenOf).filter(Objects::nonNull).forEach(tokensSeen::add));
    long acked = history.stream().filter(Event::acknowledgedWrite).count();
    long ambiguous = history.stream().filter(e -> e.outcome() == Outcome.AMBIGUOUS).count();
    long resolved = history.stream()
        .filter(e -> e.outcome() == Outcome.AMBIGUOUS && e.token() != null && tokensSeen.contains(e.token())).count();
    Map<String, Long> info = new LinkedHashMap<>();
    info.put("calls", (long) history.size());
    info.put("acknowledged writes", acked);
    info.put("delete-versus-edit conflicts", deleteConflicts);
    info.put("probe calls", history.stream().filter(Event::probe).count());
    info.put("ambiguous calls", ambiguous);
    info.put("ambiguous writes later seen written", resolved);
    info.put("keys at the end", (long) end.raw().get(0).size());
    return info;
  }

  private static void bump(Map<Row, Long> counts, List<String> examples, Row row, String example) {
    counts.merge(row, 1L, Long::sum);
    if (examples.size() < EXAMPLES) {
      examples.add(row + ": " + example);
    }
  }
}
