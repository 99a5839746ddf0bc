package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.ProtectedException;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.entity.ProtectionDao.Kind;
import dev.lethe.catalog.entity.ProtectionDao.Protection;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.purge.ParquetTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.Schema;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drop protection (docs/design/0441-drop-protection.md) at the catalog level on a real database (H2
 * always, PostgreSQL and MariaDB when configured): every path that removes or renames away an entry
 * or drops a namespace is refused while a protection covers it, and nothing changes.
 */
class ProtectionCatalogTest extends SoftDeleteFixture {
  private static final Schema VIEW_SCHEMA = new Schema(Types.NestedField.required(1, "x", Types.IntegerType.get()));

  private void protect(Kind kind, Namespace ns, String name) {
    db.jdbi().useTransaction(h -> new ProtectionDao(h).put(row.catalogId(),
        new Protection(kind, NamespaceNames.encode(ns), name, "ops-admin", System.currentTimeMillis(), "quarterly close")));
  }

  private void unprotect(Kind kind, Namespace ns, String name) {
    db.jdbi().useTransaction(h -> new ProtectionDao(h).clear(row.catalogId(), kind, NamespaceNames.encode(ns), name));
  }

  private static void refused(ThrowingCallable drop) {
    assertThatThrownBy(drop).isInstanceOf(ProtectedException.class).hasMessageContaining("set by ops-admin");
  }

  private void createView(String name) {
    catalog.buildView(id(name)).withSchema(VIEW_SCHEMA).withDefaultNamespace(ParquetTables.NS)
        .withQuery("spark", "SELECT 1 AS x").create();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void everyDropOfAProtectedTableIsRefusedAndNothingChanges(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    String metadata = ((org.apache.iceberg.BaseTable) table).operations().current().metadataFileLocation();
    protect(Kind.TABLE, ParquetTables.NS, "t");
    CleanupJobEnqueuer jobs = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());

    refused(() -> catalog.dropTable(id("t"), false));
    refused(() -> catalog.dropTable(id("t"), true));
    refused(() -> catalog.purgeTable(id("t"), "bob"));
    refused(() -> jobs.dropTable(row, id("t"), "bob"));
    refused(() -> softDeletes(true, DAY).drop(row, id("t"), "bob", true));
    refused(() -> softDeletes(true, DAY).drop(row, id("t"), "bob", false));
    refused(() -> catalog.renameTable(id("t"), id("u")));
    refused(() -> catalog.dropNamespace(ParquetTables.NS));

    assertThat(((org.apache.iceberg.BaseTable) catalog.loadTable(id("t"))).operations().current().metadataFileLocation())
        .isEqualTo(metadata);
    assertThat(catalog.tableExists(id("u"))).isFalse();
    assertThat(filesUnder(table.location())).isEqualTo(files);
    assertThat(recordCount()).isZero();
    long jobCount = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM lethe_cleanup_job").mapTo(Long.class).one());
    assertThat(jobCount).isZero();

    unprotect(Kind.TABLE, ParquetTables.NS, "t");
    catalog.renameTable(id("t"), id("u"));
    assertThat(catalog.dropTable(id("u"), false)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void everyDropOfAProtectedViewIsRefused(String backend) throws Exception {
    open(backend);
    createView("v");
    protect(Kind.VIEW, ParquetTables.NS, "v");
    CleanupJobEnqueuer jobs = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());

    refused(() -> catalog.dropView(id("v")));
    refused(() -> jobs.dropView(row, id("v"), "bob"));
    refused(() -> catalog.renameView(id("v"), id("w")));
    refused(() -> catalog.dropNamespace(ParquetTables.NS));
    assertThat(catalog.viewExists(id("v"))).isTrue();
    assertThat(catalog.viewExists(id("w"))).isFalse();

    unprotect(Kind.VIEW, ParquetTables.NS, "v");
    assertThat(catalog.dropView(id("v"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aNamespaceProtectionCoversItAndEntriesCreatedInItLater(String backend) throws Exception {
    open(backend);
    Namespace child = Namespace.of("db", "child");
    Namespace empty = Namespace.of("empty");
    catalog.createNamespace(child, Map.of());
    catalog.createNamespace(empty, Map.of());
    protect(Kind.NAMESPACE, ParquetTables.NS, "");
    protect(Kind.NAMESPACE, empty, "");

    catalog.createTable(id("later"), ParquetTables.SCHEMA);
    catalog.createTable(TableIdentifier.of(child, "deep"), ParquetTables.SCHEMA);
    createView("lv");
    refused(() -> catalog.dropTable(id("later"), false));
    refused(() -> catalog.dropTable(id("later"), true));
    refused(() -> softDeletes(true, DAY).drop(row, id("later"), "bob", false));
    refused(() -> catalog.renameTable(id("later"), TableIdentifier.of(empty, "x")));
    refused(() -> catalog.dropTable(TableIdentifier.of(child, "deep"), false));
    refused(() -> catalog.dropView(id("lv")));
    refused(() -> catalog.dropNamespace(empty));
    assertThat(catalog.tableExists(id("later"))).isTrue();
    assertThat(catalog.namespaceExists(empty)).isTrue();

    unprotect(Kind.NAMESPACE, empty, "");
    protect(Kind.TABLE, empty, "not-yet");
    refused(() -> catalog.dropNamespace(empty));
    unprotect(Kind.TABLE, empty, "not-yet");
    assertThat(catalog.dropNamespace(empty)).isTrue();
  }

  /**
   * Random protect / unprotect / create / drop / rename / namespace drop against an oracle: a
   * protected object is never dropped or renamed away; an unprotected one drops normally.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void randomSequencesNeverDropAProtectedObject(String backend) throws Exception {
    open(backend);
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    Random rnd = new Random(seed);
    List<Namespace> nss = List.of(ParquetTables.NS, Namespace.of("n1"), Namespace.of("n2"));
    catalog.createNamespace(nss.get(1), Map.of());
    catalog.createNamespace(nss.get(2), Map.of());
    List<String> names = List.of("a", "b", "c");
    Set<TableIdentifier> live = new HashSet<>();
    Set<TableIdentifier> retained = new HashSet<>(); // soft-dropped: the name stays held
    Set<Namespace> liveNs = new HashSet<>(nss);
    Set<TableIdentifier> protectedTables = new HashSet<>();
    Set<Namespace> protectedNs = new HashSet<>();
    Map<String, Integer> counts = new HashMap<>();
    for (int step = 0; step < 150; step++) {
      Namespace ns = nss.get(rnd.nextInt(nss.size()));
      TableIdentifier t = TableIdentifier.of(ns, names.get(rnd.nextInt(names.size())));
      boolean covered = protectedTables.contains(t) || protectedNs.contains(ns);
      String what = "seed " + seed + " step " + step;
      int op = rnd.nextInt(7);
      counts.merge(List.of("protectT", "unprotectT", "protectNs", "create", "drop", "rename", "dropNs").get(op), 1, Integer::sum);
      switch (op) {
        case 0 -> { protect(Kind.TABLE, ns, t.name()); protectedTables.add(t); }
        case 1 -> { unprotect(Kind.TABLE, ns, t.name()); protectedTables.remove(t); }
        case 2 -> {
          if (protectedNs.remove(ns)) {
            unprotect(Kind.NAMESPACE, ns, "");
          } else {
            protect(Kind.NAMESPACE, ns, "");
            protectedNs.add(ns);
          }
        }
        case 3 -> {
          if (liveNs.contains(ns) && !live.contains(t) && !retained.contains(t)) {
            catalog.createTable(t, ParquetTables.SCHEMA);
            live.add(t);
          }
        }
        case 4 -> {
          if (live.contains(t)) {
            int mode = rnd.nextInt(3);
            ThrowingCallable drop = mode == 0 ? () -> catalog.dropTable(t, false)
                : mode == 1 ? () -> catalog.dropTable(t, true)
                : () -> softDeletes(true, DAY).drop(row, t, "bob", rnd.nextBoolean());
            if (covered) {
              refused(drop);
            } else {
              try {
                drop.call();
              } catch (Throwable e) {
                throw new AssertionError(what, e);
              }
              live.remove(t);
              if (mode == 2) {
                retained.add(t);
              }
            }
          }
        }
        case 5 -> {
          TableIdentifier to = TableIdentifier.of(nss.get(rnd.nextInt(nss.size())), "r" + step);
          if (live.contains(t) && liveNs.contains(to.namespace())) {
            if (covered) {
              refused(() -> catalog.renameTable(t, to));
            } else {
              catalog.renameTable(t, to);
              live.remove(t);
              live.add(to);
            }
          }
        }
        default -> {
          boolean holds = live.stream().anyMatch(x -> x.namespace().equals(ns))
              || protectedTables.stream().anyMatch(x -> x.namespace().equals(ns));
          if (liveNs.contains(ns) && !live.stream().anyMatch(x -> x.namespace().equals(ns))
              && catalog.listTables(ns).isEmpty() && soleRetained(ns)) {
            if (protectedNs.contains(ns) || holds) {
              refused(() -> catalog.dropNamespace(ns));
            } else {
              assertThat(catalog.dropNamespace(ns)).as(what).isTrue();
              liveNs.remove(ns);
              catalog.createNamespace(ns, Map.of()); // keep the namespace for later steps
              liveNs.add(ns);
            }
          }
        }
      }
      for (TableIdentifier x : live) {
        assertThat(catalog.tableExists(x)).as(what + " " + x).isTrue();
      }
    }
    assertThat(counts).as("every kind of step ran, seed " + seed).hasSize(7);
  }

  /**
   * Admins setting one new protection at once: each gets the protection, none a key violation (a
   * lost race is retried, {@code Protections.protect}), and one row is left.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void concurrentProtectsOfOneNewNameAllSucceed(String backend) throws Exception {
    open(backend);
    dev.lethe.catalog.entity.Protections protections =
        new dev.lethe.catalog.entity.Protections(db, java.time.Clock.systemUTC());
    int threads = 8;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 20; round++) {
        String name = "race" + round;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        List<java.util.concurrent.Future<Protection>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          String by = "admin" + t;
          results.add(pool.submit(() -> {
            start.await();
            return protections.protect(row.catalogId(), Kind.TABLE, "db", name, by, "").protection();
          }));
        }
        for (java.util.concurrent.Future<Protection> r : results) {
          assertThat(r.get().name()).as("round " + round).isEqualTo(name);
        }
        assertThat(protections.list(row.catalogId()).stream().filter(p -> p.name().equals(name)).count())
            .as("round " + round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private boolean soleRetained(Namespace ns) {
    return softDeletes(true, DAY).list(row, ns).map(List::isEmpty).orElse(true);
  }
}
