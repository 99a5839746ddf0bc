package dev.lethe.store.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.lines.Lines;
import dev.lethe.store.core.planner.ConsumerPutPlanner;
import dev.lethe.store.core.planner.Plan;
import dev.lethe.store.core.planner.RawPutPlanner;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The three-way merge of append-only records (docs/design/0156-three-way-line-merge.md): an
 * exhaustive check of the set rule, and a seeded randomized oracle of edit scripts on two sides
 * through the real put and sync planners.
 */
class ThreeWayMergeTest {

  private static final RecordKey KEY = new RecordKey("n", "c", "k");
  private static final List<String> UNIVERSE = List.of("a", "b", "c", "d");

  private static List<String> subset(int mask) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < UNIVERSE.size(); i++) {
      if ((mask & (1 << i)) != 0) {
        out.add(UNIVERSE.get(i));
      }
    }
    return out;
  }

  @Test
  void everyBaseAndPairOfSidesOverFourLinesMergesByTheRule() {
    int n = 1 << UNIVERSE.size();
    for (int b = 0; b < n; b++) {
      for (int f = 0; f < n; f++) {
        for (int s = 0; s < n; s++) {
          Set<String> base = new HashSet<>(subset(b));
          List<String> first = subset(f);
          List<String> second = subset(s);
          List<String> merged = Lines.merge(base, first, second);
          for (String x : UNIVERSE) {
            boolean inF = first.contains(x);
            boolean inS = second.contains(x);
            boolean expected = (inF && inS) || ((inF || inS) && !base.contains(x));
            assertThat(merged.contains(x)).as("%s: base %s, %s, %s", x, base, first, second).isEqualTo(expected);
          }
          assertThat(new LinkedHashSet<>(merged)).hasSameSizeAs(merged);
          assertThat(Lines.merge(base, second, first)).containsExactlyInAnyOrderElementsOf(merged);
        }
      }
    }
  }

  @Test
  void labelsMergeThreeWay() {
    assertThat(Lines.mergeLabels(Map.of("x", "1"), Map.of(), Map.of("x", "1"))).contains(Map.of());
    assertThat(Lines.mergeLabels(Map.of("x", "1"), Map.of("x", "1"), Map.of("x", "2"))).contains(Map.of("x", "2"));
    assertThat(Lines.mergeLabels(Map.of(), Map.of("y", "1"), Map.of())).contains(Map.of("y", "1"));
    assertThat(Lines.mergeLabels(Map.of("x", "1"), Map.of("x", "2"), Map.of())).isEmpty();
    assertThat(Lines.mergeLabels(Map.of("x", "1"), Map.of("x", "2"), Map.of("x", "2"))).contains(Map.of("x", "2"));
  }

  private static Record put(Record over, List<String> lines, int cap) {
    Record draft = Record.draft(KEY, Kind.LINES, new Body.Inline(Lines.join(lines)), Meta.byAuthor("w"));
    Plan<PutResult> plan = ConsumerPutPlanner.plan(Optional.ofNullable(over), draft,
        over == null ? Optional.empty() : Optional.of(over.revision()), 1000, cap);
    return ((Plan.Write<PutResult>) plan).record();
  }

  private static List<String> lines(Record r) {
    return Lines.split(((Body.Inline) r.body()).bytes());
  }

  /** One random edit: remove a line, append a fresh one, or re-add one removed before. */
  private static List<String> edit(Random rnd, List<String> now, List<String> removed, Set<String> readded,
      int[] fresh) {
    List<String> next = new ArrayList<>(now);
    int op = rnd.nextInt(3);
    if (op == 0 && !next.isEmpty()) {
      removed.add(next.remove(rnd.nextInt(next.size())));
    } else if (op == 1 && !removed.isEmpty()) {
      String back = removed.remove(rnd.nextInt(removed.size()));
      if (!next.contains(back)) {
        next.add(back);
        readded.add(back);
      }
    } else {
      next.add("n" + fresh[0]++);
    }
    return next;
  }

  @Test
  void randomEditScriptsOnTwoSidesNeverBringBackARemovedLineAndKeepEveryAddedOne() {
    long seed = Long.getLong("lethe.test.seed", new Random().nextLong());
    Random rnd = new Random(seed);
    RecordJson json = new RecordJson();
    int[] fresh = {0};
    int merges = 0;
    int conflicts = 0;
    for (int run = 0; run < 200; run++) {
      int cap = rnd.nextBoolean() ? 32 : 2 + rnd.nextInt(4);
      List<String> start = new ArrayList<>();
      for (int i = 0, n = rnd.nextInt(6); i < n; i++) {
        start.add("n" + fresh[0]++);
      }
      Record common = put(null, start, cap);
      for (int round = 0; round < 4; round++) {
        Record a = common;
        Record b = common;
        List<String> removedA = new ArrayList<>();
        List<String> removedB = new ArrayList<>();
        Set<String> readdedA = new HashSet<>();
        Set<String> readdedB = new HashSet<>();
        for (int i = 1 + rnd.nextInt(5); i > 0; i--) {
          a = put(a, edit(rnd, lines(a), removedA, readdedA, fresh), cap);
        }
        for (int i = 1 + rnd.nextInt(5); i > 0; i--) {
          b = put(b, edit(rnd, lines(b), removedB, readdedB, fresh), cap);
        }
        // what each store holds: the record through its JSON form, its ancestry capped
        a = json.decode(json.encode(a));
        b = json.decode(json.encode(b));
        SyncAction ab = SyncPlanner.plan(Optional.of(a), Optional.of(b));
        SyncAction ba = SyncPlanner.plan(Optional.of(b), Optional.of(a));
        if (ab instanceof SyncAction.Diverged) {
          assertThat(ba).as("seed %d", seed).isInstanceOf(SyncAction.Diverged.class);
          conflicts++;
          break;
        }
        if (!(ab instanceof SyncAction.Merge mab)) {
          break; // an edit script that came back to the same lines on both sides
        }
        merges++;
        assertThat(((SyncAction.Merge) ba).merged()).as("seed %d", seed).isEqualTo(mab.merged());
        Set<String> base = new HashSet<>(lines(common));
        Set<String> inA = new HashSet<>(lines(a));
        Set<String> inB = new HashSet<>(lines(b));
        List<String> merged = lines(mab.merged());
        for (String x : base) {
          // removed on one side, and not removed and put back on the other
          if ((!inA.contains(x) && !readdedB.contains(x)) || (!inB.contains(x) && !readdedA.contains(x))) {
            assertThat(merged).as("seed %d: %s was removed on one side", seed, x).doesNotContain(x);
          }
        }
        for (String x : inA) {
          if (!base.contains(x) || inB.contains(x)) {
            assertThat(merged).as("seed %d: %s was added or kept by A", seed, x).contains(x);
          }
        }
        for (String x : inB) {
          if (!base.contains(x) || inA.contains(x)) {
            assertThat(merged).as("seed %d: %s was added or kept by B", seed, x).contains(x);
          }
        }
        assertThat(RevisionHash.problem(mab.merged())).isEmpty();
        // both stores write it with their cap, as a raw put does
        Plan<PutResult> written = RawPutPlanner.plan(Optional.of(a), mab.merged(), Optional.of(a.revision()), cap);
        common = json.decode(json.encode(((Plan.Write<PutResult>) written).record()));
      }
    }
    assertThat(merges).as("seed %d", seed).isGreaterThan(100);
    System.out.printf("seed %d: %d merges, %d conflicts (ancestry cut by a small cap)%n", seed, merges, conflicts);
  }
}
