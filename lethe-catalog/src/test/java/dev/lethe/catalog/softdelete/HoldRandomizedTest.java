package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.HeldException;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random holds, releases, creates, drops (metadata-only, synchronous and asynchronous purge, soft
 * with and without purge, retention 0 so every retained table is past its deadline), undrops,
 * expiry ticks and worker runs over four table names in a namespace and its child, with real
 * Parquet files, against an oracle (docs/design/0444-legal-holds.md):
 *
 * <ul>
 *   <li>no step deletes a file of a table a hold covers during that step;
 *   <li>a drop that would purge a held live table is refused, any other drop succeeds;
 *   <li>a tick claims exactly the retained tables no hold covers; an undrop succeeds exactly when
 *       a hold kept the table retained past its deadline;
 *   <li>once every hold is released, ticks and worker runs purge every table dropped with purge.
 * </ul>
 *
 * Seed: {@code -Dlethe.test.seed=N} (else the clock), printed in every failure.
 */
class HoldRandomizedTest extends HoldFixture {
  private static final Namespace CHILD = Namespace.of("db", "child");

  /** One created table: its identity, id and files at creation; whether a purge was asked of it. */
  private static final class Gen {
    final TableIdentifier id;
    final String tableId;
    final String location;
    final Set<Path> files;
    boolean purgeAsked;

    Gen(TableIdentifier id, String tableId, String location, Set<Path> files) {
      this.id = id;
      this.tableId = tableId;
      this.location = location;
      this.files = files;
    }

    @Override
    public String toString() {
      return id + "@" + location;
    }
  }

  /** Op indexes, drops and creates more often than the rest, so purges meet holds often. */
  private static final int[] WEIGHTED = {0, 1, 2, 3, 4, 4, 4, 5, 5, 5, 5, 6, 7, 7, 8, 8, 9, 9};
  /** Drop modes: 0 metadata-only, 1 synchronous purge, 2 asynchronous purge, 3 soft with purge, 4 soft without. */
  private static final int[] MODES = {0, 1, 2, 2, 2, 3, 3, 4};

  private final Set<TableIdentifier> heldTables = new HashSet<>();
  private final Set<Namespace> heldNamespaces = new HashSet<>();

  private boolean held(TableIdentifier t) {
    return heldTables.contains(t) || heldNamespaces.contains(t.namespace())
        || (heldNamespaces.contains(ParquetTables.NS) && t.namespace().equals(CHILD));
  }

  private static Set<Path> existing(Gen g) {
    Set<Path> s = new HashSet<>();
    for (Path p : g.files) {
      if (Files.exists(p)) {
        s.add(p);
      }
    }
    return s;
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void noFileOfAHeldTableIsEverDeletedAndEveryReleasedPurgeFinishes(String backend) throws Exception {
    openHolds(backend);
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    Random rnd = new Random(seed);
    catalog.createNamespace(CHILD, Map.of());
    SoftDeletes sd = softDeletes(true, 0);
    List<TableIdentifier> ids = List.of(TableIdentifier.of(ParquetTables.NS, "a"), TableIdentifier.of(ParquetTables.NS, "b"),
        TableIdentifier.of(CHILD, "a"), TableIdentifier.of(CHILD, "b"));
    List<Namespace> nss = List.of(ParquetTables.NS, CHILD);
    Map<TableIdentifier, Gen> live = new HashMap<>();
    Map<TableIdentifier, Gen> retained = new HashMap<>(); // soft-dropped, not claimed yet
    Map<TableIdentifier, Boolean> retainedPurge = new HashMap<>();
    List<Gen> gens = new ArrayList<>();
    Map<String, Integer> counts = new TreeMap<>();
    List<String> ops = List.of("holdT", "releaseT", "holdNs", "releaseNs", "create", "drop", "undrop", "tick", "worker",
        "holdPurging");
    int steps = Integer.getInteger("lethe.test.steps", 120);
    for (int step = 0; step < steps; step++) {
      String what = "seed " + seed + " step " + step;
      TableIdentifier t0 = ids.get(rnd.nextInt(ids.size()));
      Namespace ns = nss.get(rnd.nextInt(nss.size()));
      int op = WEIGHTED[rnd.nextInt(WEIGHTED.length)];
      // a drop picks a live table and an undrop a retained one when there is one
      List<TableIdentifier> pool = (op == 5 ? live.keySet() : op == 6 ? retained.keySet() : Set.<TableIdentifier>of())
          .stream().sorted(java.util.Comparator.comparing(TableIdentifier::toString)).toList();
      TableIdentifier t = pool.isEmpty() ? t0 : pool.get(rnd.nextInt(pool.size()));
      counts.merge(ops.get(op), 1, Integer::sum);
      Map<Gen, Set<Path>> before = new LinkedHashMap<>();
      gens.forEach(g -> before.put(g, existing(g)));
      switch (op) {
        case 0 -> { holdTable(t.namespace(), t.name()); heldTables.add(t); }
        case 1 -> { releaseTable(t.namespace(), t.name()); heldTables.remove(t); }
        case 2 -> { holdNamespace(ns); heldNamespaces.add(ns); }
        case 3 -> { releaseNamespace(ns); heldNamespaces.remove(ns); }
        case 4 -> {
          if (!live.containsKey(t) && !retained.containsKey(t)) {
            try {
              Table table = createWithData(t);
              Gen g = new Gen(t, catalog.row().catalogId() + "", table.location(), SoftDeleteFixture.filesUnder(table.location()));
              live.put(t, withTableId(g));
              gens.add(live.get(t));
            } catch (AlreadyExistsException e) {
              // the name is still a purge's (its job not finished): fine
            }
          }
        }
        case 5 -> {
          Gen g = live.get(t);
          if (g != null) {
            int mode = MODES[rnd.nextInt(MODES.length)];
            counts.merge("drop" + mode, 1, Integer::sum);
            switch (mode) {
              case 0 -> { assertThat(catalog.dropTable(t, false)).as(what).isTrue(); live.remove(t); }
              case 1, 2 -> {
                if (held(t)) {
                  assertThatThrownBy(() -> {
                    if (mode == 1) {
                      catalog.purgeTable(t, "bob");
                    } else {
                      enqueuer.dropTable(row, t, "bob");
                    }
                  }).as(what).isInstanceOf(HeldException.class);
                } else {
                  if (mode == 1) {
                    assertThat(catalog.purgeTable(t, "bob").state()).as(what).isEqualTo(CleanupJobState.SUCCEEDED);
                  } else {
                    enqueuer.dropTable(row, t, "bob");
                  }
                  g.purgeAsked = true;
                  live.remove(t);
                }
              }
              default -> {
                boolean purge = mode == 3;
                assertThat(sd.drop(row, t, "alice", purge)).as(what).isInstanceOf(SoftDeletePlanner.CreateRecord.class);
                live.remove(t);
                retained.put(t, g);
                retainedPurge.put(t, purge);
              }
            }
          }
        }
        case 6 -> {
          if (retained.containsKey(t)) {
            SoftDeletePlanner.RestoreDecision d = sd.restore(row, t);
            // retention 0: only a hold keeps a retained table restorable
            assertThat(d instanceof Restore).as(what + " undrop of " + t + ": " + d).isEqualTo(held(t));
            if (d instanceof Restore) {
              live.put(t, retained.remove(t));
              retainedPurge.remove(t);
            }
          }
        }
        case 7 -> {
          Set<String> claimed = sd.expireDue(100).stream().map(c -> claimedEntity(c)).collect(Collectors.toSet());
          Set<String> expected = new HashSet<>();
          for (Map.Entry<TableIdentifier, Gen> e : new ArrayList<>(retained.entrySet())) {
            if (!held(e.getKey())) {
              expected.add(e.getValue().tableId);
              e.getValue().purgeAsked = retainedPurge.remove(e.getKey());
              retained.remove(e.getKey());
            }
          }
          assertThat(claimed).as(what + " tick claims exactly the unheld retained tables").isEqualTo(expected);
          sd.finalizeSucceeded(100);
        }
        case 8 -> runWorker();
        default -> {
          // hold a table whose purge was asked and has files left: a queued job must now wait
          List<TableIdentifier> purging = gens.stream().filter(g -> g.purgeAsked && !existing(g).isEmpty())
              .map(g -> g.id).distinct().sorted(java.util.Comparator.comparing(TableIdentifier::toString)).toList();
          if (!purging.isEmpty()) {
            TableIdentifier p = purging.get(rnd.nextInt(purging.size()));
            holdTable(p.namespace(), p.name());
            heldTables.add(p);
          }
        }
      }
      // the oracle: no file of a table held during this step went
      for (Map.Entry<Gen, Set<Path>> e : before.entrySet()) {
        Set<Path> gone = new HashSet<>(e.getValue());
        gone.removeAll(existing(e.getKey()));
        if (!gone.isEmpty()) {
          assertThat(held(e.getKey().id)).as(what + " (" + ops.get(op) + ") deleted " + gone.size() + " files of held "
              + e.getKey()).isFalse();
        }
      }
    }
    // liveness: release everything; ticks and worker runs finish every purge asked
    for (TableIdentifier t : ids) {
      releaseTable(t.namespace(), t.name());
    }
    nss.forEach(this::releaseNamespace);
    heldTables.clear();
    heldNamespaces.clear();
    for (int round = 0; round < 3; round++) {
      sd.expireDue(100);
      List<PurgeJobExecutor.Finished> runs = runWorker();
      assertThat(runs).as("seed " + seed + " final runs").allSatisfy(
          f -> assertThat(f.state()).isEqualTo(CleanupJobState.SUCCEEDED));
      sd.finalizeSucceeded(100);
    }
    retained.forEach((t, g) -> g.purgeAsked = retainedPurge.get(t));
    for (Gen g : gens) {
      if (g.purgeAsked) {
        assertThat(existing(g)).as("seed " + seed + ": every file of purged " + g + " is gone").isEmpty();
      }
    }
    assertThat(counts.keySet()).as("every kind of step ran, seed " + seed + ": " + counts).containsAll(ops);
  }

  private Gen withTableId(Gen g) {
    String tableId = db.jdbi().withHandle(h -> h.createQuery("SELECT t.table_id FROM lethe_table t JOIN lethe_namespace n "
            + "ON n.namespace_id = t.namespace_id WHERE n.catalog_id = :c AND n.name = :ns AND t.name = :name "
            + "AND t.deleted_at = 0 AND t.deletion_id IS NULL")
        .bind("c", row.catalogId())
        .bind("ns", dev.lethe.catalog.entity.NamespaceNames.encode(g.id.namespace()))
        .bind("name", g.id.name())
        .mapTo(String.class)
        .one());
    return new Gen(g.id, tableId, g.location, g.files);
  }

  private static String claimedEntity(SoftDeletes.Claimed c) {
    if (c.decision() instanceof SoftDeletePlanner.EnqueuePurge e) {
      return e.record().entityId();
    }
    if (c.decision() instanceof SoftDeletePlanner.RemoveMetadata m) {
      return m.record().entityId();
    }
    throw new AssertionError("unexpected claim " + c);
  }
}
