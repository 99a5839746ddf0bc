package dev.lethe.catalog.location;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.io.LocalFileIO;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import dev.lethe.catalog.softdelete.SoftDeletes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ownership rule (issue 9 rule 2; docs/design/0001-purge-confinement-and-ownership.md §3) under
 * random, seeded sequences of creates, registers (plain and overwrite), renames, commits that move a
 * table or set its data path, metadata-only drops, synchronous purges, asynchronous drops (jobs left
 * {@code PENDING}, then ended as a worker ends them), soft drops, undrops, purge-nows, and view
 * creates and drops, over a small tree of overlapping directories, every path written in a random
 * legal spelling ({@code /p}, {@code file:/p}, {@code file:///p}, {@code file://localhost/p}, doubled
 * and trailing slashes).
 *
 * <p>The oracle, after every step, from the database and the metadata files alone:
 *
 * <ul>
 *   <li>no two entries that can become live (live and retained tables, views, pending, running and
 *       failed jobs) overlap, their roots computed afresh from their metadata;
 *   <li>each of them holds exactly those roots as claims, and nothing else holds a claim;
 *   <li>a request is refused with 409 exactly when its locations overlap another such entry, and a
 *       refused request changed nothing: no row, no claim, no file;
 *   <li>every such entry's current metadata file still exists (no purge deleted another's files).
 * </ul>
 *
 * <p>Seed: {@code -Dlethe.test.seed=N} (default: random, printed in every assertion); steps: {@code
 * -Dlethe.test.ownership.steps=N} (default 150 on H2, 60 on the server databases).
 */
class OwnershipRandomizedTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final List<Namespace> NAMESPACES = List.of(Namespace.of("db"), Namespace.of("db2"));
  private static final List<String> DIRS =
      List.of("a", "a/b", "a/b/c", "a/d", "a/d/e", "f", "f/g", "h", "h/i/j", "k", "l/m", "n", "n/o", "p");

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private LetheCatalog catalog;
  private CatalogRow row;
  private SoftDeletes soft;
  private CleanupJobEnqueuer enqueuer;
  private Path warehouse;
  private Random random;
  private long seed;
  private int names;
  private final List<String> metadataFiles = new ArrayList<>();
  private final LocalFileIO io = new LocalFileIO();

  @AfterEach
  void close() throws Exception {
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void noTwoEntriesThatCanBecomeLiveEverOverlapAndEveryRefusalChangesNothing(String backend) throws Exception {
    this.backend = backend;
    seed = Long.getLong("lethe.test.seed", System.nanoTime());
    random = new Random(seed);
    int steps = Integer.getInteger("lethe.test.ownership.steps", backend.equals("h2") ? 150 : 60);
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    warehouse = tmp.resolve("warehouse");
    catalogs.ensureCatalog("main", warehouse.toString(), Map.of());
    catalog = catalogs.catalog("main").orElseThrow();
    row = catalog.row();
    NAMESPACES.forEach(ns -> catalog.createNamespace(ns, Map.of()));
    CredentialCipher cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
    soft = new SoftDeletes(db, "default", new SoftDeleteSettings(true, 86_400_000L, 1000), cipher, new FileIOFactory(),
        () -> UUID.randomUUID().toString());
    enqueuer = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());

    int refused = 0;
    for (int step = 0; step < steps; step++) {
      refused += step(step) ? 1 : 0;
    }
    System.out.printf("OwnershipRandomizedTest %s seed %d: %d steps, %d refused for an overlap%n", backend, seed, steps, refused);
    // the walk must have exercised both outcomes, or it proved little
    assertThat(refused).as("seed %d: refusals", seed).isPositive().isLessThan(steps);
  }

  /** One random request and the oracle; returns whether it was refused for an overlap. */
  private boolean step(int step) throws Exception {
    List<Holder> holders = holders();
    String snapshot = snapshot();
    Op op = randomOp(holders);
    String what = "seed " + seed + ", step " + step + ": " + op.describe;
    boolean expectRefusal = op.requested != null && overlapsOther(op, holders);
    Exception failure = null;
    try {
      op.action.run();
    } catch (Exception e) {
      failure = e;
    }
    if (failure != null) {
      assertThat(snapshot()).as(what + " was refused (" + failure + ") and must change nothing").isEqualTo(snapshot);
    }
    if (op.requested != null) {
      if (expectRefusal) {
        // a create or register is 409; a commit that moves is 400 (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md)
        assertThat(failure).as(what + " overlaps another entry").isInstanceOfAny(AlreadyExistsException.class,
            LocationHeldException.class);
        assertThat(failure.getMessage()).as(what).contains("held by");
      } else {
        assertThat(failure).as(what + " overlaps nothing and must succeed").isNull();
      }
    } else if (failure != null && !(failure instanceof org.apache.iceberg.exceptions.NotFoundException)) {
      throw new AssertionError(what + " failed unexpectedly", failure);
    }
    checkInvariants(what);
    return expectRefusal;
  }

  /** A live or retained table, view or active job, with its roots computed from its metadata. */
  private record Holder(ClaimOwner owner, String label, List<LocationPath> roots, String metadata) {}

  /**
   * A request: what it asks to hold ({@code requested}, null when it asks for nothing new), for whom
   * ({@code self}, null for a new entry), and whether the request is a directory a new file will be
   * written into (a view's metadata directory: only a holder containing it conflicts).
   */
  private record Op(String describe, List<LocationPath> requested, ClaimOwner self, boolean directory,
      ThrowingRunnable action) {
    Op(String describe, List<LocationPath> requested, ClaimOwner self, ThrowingRunnable action) {
      this(describe, requested, self, false, action);
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private Op randomOp(List<Holder> holders) {
    List<Holder> liveTables = holders.stream().filter(h -> h.label.startsWith("live ")).toList();
    List<Holder> retained = holders.stream().filter(h -> h.label.startsWith("retained ")).toList();
    List<Holder> jobs = holders.stream().filter(h -> h.owner.kind() == ClaimOwner.Kind.JOB).toList();
    List<Holder> views = holders.stream().filter(h -> h.owner.kind() == ClaimOwner.Kind.VIEW).toList();
    // pick until the request applies to the current state
    while (true) {
      int pick = random.nextInt(100);
      if (pick < 14) {
        String dir = randomDir();
        TableIdentifier id = fresh();
        String spelled = spell(dir);
        return new Op("create " + id + " at " + spelled, List.of(LocationPath.parse(dir)), null,
            () -> remember(catalog.buildTable(id, SCHEMA).withLocation(spelled).create()));
      }
      if (pick < 28 && !metadataFiles.isEmpty()) {
        String file = metadataFiles.get(random.nextInt(metadataFiles.size()));
        TableIdentifier id = fresh();
        String spelled = spell(file);
        // a purge may have deleted the file: then the register fails (404) and must change nothing
        return new Op("register " + id + " from " + spelled, existingRootsOf(file), null,
            () -> catalog.registerTable(id, spelled));
      }
      if (pick < 32 && !liveTables.isEmpty() && !metadataFiles.isEmpty()) {
        Holder target = pickOne(liveTables);
        String file = metadataFiles.get(random.nextInt(metadataFiles.size()));
        String spelled = spell(file);
        return new Op("register overwrite " + target.label + " from " + spelled, existingRootsOf(file), target.owner,
            () -> catalog.registerTable(id(target), spelled, true));
      }
      if (pick < 42 && !liveTables.isEmpty()) {
        Holder target = pickOne(liveTables);
        String dir = randomDir();
        boolean dataPath = random.nextBoolean();
        org.apache.iceberg.Table current = catalog.loadTable(id(target));
        Map<String, String> props = new java.util.HashMap<>(current.properties());
        String location = current.location();
        if (dataPath) {
          props.put("write.data.path", dir);
        } else {
          location = dir;
        }
        List<LocationPath> requested = TableRoots.of(location, props).roots();
        String spelled = spell(dir);
        return new Op((dataPath ? "set write.data.path of " : "move ") + target.label + " to " + spelled,
            requested, target.owner, () -> {
              var table = catalog.loadTable(id(target));
              if (dataPath) {
                table.updateProperties().set("write.data.path", spelled).commit();
              } else {
                table.updateLocation().setLocation(spelled).commit();
              }
              remember(catalog.loadTable(id(target)));
            });
      }
      if (pick < 46 && !liveTables.isEmpty()) {
        Holder target = pickOne(liveTables);
        TableIdentifier to = fresh();
        return new Op("rename " + target.label + " to " + to, null, null, () -> catalog.renameTable(id(target), to));
      }
      if (pick < 54 && !liveTables.isEmpty()) {
        Holder target = pickOne(liveTables);
        return new Op("drop " + target.label, null, null, () -> catalog.dropTable(id(target), false));
      }
      if (pick < 58 && !liveTables.isEmpty()) {
        Holder target = pickOne(liveTables);
        return new Op("purge " + target.label, null, null, () -> catalog.dropTable(id(target), true));
      }
      if (pick < 64 && !liveTables.isEmpty()) {
        Holder target = pickOne(liveTables);
        return new Op("async drop " + target.label, null, null, () -> enqueuer.dropTable(row, id(target), "random"));
      }
      if (pick < 74 && !jobs.isEmpty()) {
        Holder job = pickOne(jobs);
        String state = random.nextBoolean() ? "SUCCEEDED" : "FAILED";
        return new Op("end " + job.label + " " + state, null, null, () -> db.jdbi().useTransaction(h -> {
          // what a worker's outcome write does: the state and, for SUCCEEDED, the release, in one transaction
          // (a FAILED job keeps its claims: docs/design/0446-a-failed-job-keeps-its-locations.md)
          h.createUpdate("UPDATE lethe_cleanup_job SET state = :s WHERE job_id = :id")
              .bind("s", state).bind("id", job.owner.jobId()).execute();
          if (state.equals("SUCCEEDED")) {
            LocationClaims.release(h, job.owner);
          }
        }));
      }
      if (pick < 80 && !liveTables.isEmpty()) {
        Holder target = pickOne(liveTables);
        return new Op("soft drop " + target.label, null, null, () -> soft.drop(row, id(target), "random", random.nextBoolean()));
      }
      if (pick < 84 && !retained.isEmpty()) {
        Holder target = pickOne(retained);
        return new Op("undrop " + target.label, target.roots, target.owner, () -> soft.restore(row, id(target)));
      }
      if (pick < 88 && !retained.isEmpty()) {
        Holder target = pickOne(retained);
        return new Op("purge now " + target.label, null, null, () -> soft.purgeNow(row, id(target), "admin"));
      }
      if (pick < 93) {
        String dir = randomDir();
        TableIdentifier id = fresh();
        String spelled = spell(dir);
        // a view's metadata file lands in <location>/metadata: refused when a holder contains that directory
        LocationPath metadataDir = LocationPath.parse(dir + "/metadata");
        return new Op("create view " + id + " at " + spelled, List.of(metadataDir), null, true,
            () -> catalog.buildView(id).withSchema(SCHEMA).withDefaultNamespace(id.namespace())
                .withQuery("spark", "select 1").withLocation(spelled).create());
      }
      if (!views.isEmpty()) {
        Holder view = pickOne(views);
        return new Op("drop " + view.label, null, null, () -> catalog.dropView(id(view)));
      }
    }
  }

  /**
   * Whether the request overlaps a holder other than its own entry. A directory request (a view's
   * metadata directory) conflicts only with a holder that contains it: files of other views inside
   * it do not.
   */
  private static boolean overlapsOther(Op op, List<Holder> holders) {
    for (Holder h : holders) {
      if (h.owner.equals(op.self)) {
        continue;
      }
      for (LocationPath r : op.requested) {
        for (LocationPath root : h.roots) {
          if (op.directory ? root.contains(r) : r.overlaps(root)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private void checkInvariants(String what) throws IOException {
    List<Holder> holders = holders();
    for (int i = 0; i < holders.size(); i++) {
      Holder a = holders.get(i);
      assertThat(Files.exists(LocalFileIO.toPath(a.metadata))).as(what + ": metadata of " + a.label + " exists").isTrue();
      for (int j = i + 1; j < holders.size(); j++) {
        Holder b = holders.get(j);
        for (LocationPath ra : a.roots) {
          for (LocationPath rb : b.roots) {
            assertThat(ra.overlaps(rb)).as(what + ": " + a.label + " " + ra + " overlaps " + b.label + " " + rb).isFalse();
          }
        }
      }
    }
    List<String> expected = holders.stream()
        .flatMap(h -> h.roots.stream().map(r -> h.owner + " " + r))
        .sorted().toList();
    List<String> actual = db.jdbi().withHandle(h -> new LocationClaimDao(h).all()).stream()
        .map(c -> c.owner() + " " + c.root()).sorted().toList();
    assertThat(actual).as(what + ": the claims are exactly the holders' roots").isEqualTo(expected);
  }

  /** Every entry that can become live, read from the database, its roots from its metadata file. */
  private List<Holder> holders() {
    return db.jdbi().withHandle(h -> {
      List<Holder> out = new ArrayList<>();
      h.createQuery("SELECT t.table_id, t.name, n.name AS ns, t.metadata_location, t.deletion_id FROM lethe_table t "
              + "JOIN lethe_namespace n ON n.namespace_id = t.namespace_id LEFT JOIN lethe_entity_deletion d "
              + "ON d.deletion_id = t.deletion_id WHERE t.deleted_at = 0 AND (t.deletion_id IS NULL "
              + "OR (d.state = 'DELETED' AND d.purge_job_id IS NULL)) ORDER BY t.table_id")
          .map((rs, ctx) -> new Holder(ClaimOwner.table(rs.getString("table_id")),
              (rs.getString("deletion_id") == null ? "live " : "retained ") + rs.getString("ns") + "." + rs.getString("name"),
              rootsOf(rs.getString("metadata_location")), rs.getString("metadata_location")))
          .forEach(out::add);
      h.createQuery("SELECT v.view_id, v.name, n.name AS ns, v.metadata_location FROM lethe_view v "
              + "JOIN lethe_namespace n ON n.namespace_id = v.namespace_id ORDER BY v.view_id")
          .map((rs, ctx) -> new Holder(ClaimOwner.view(rs.getString("view_id")), "view " + rs.getString("ns") + "."
              + rs.getString("name"), List.of(LocationPath.parse(rs.getString("metadata_location"))),
              rs.getString("metadata_location")))
          .forEach(out::add);
      h.createQuery("SELECT job_id, object_type, metadata_location FROM lethe_cleanup_job "
              + "WHERE state IN ('PENDING', 'RUNNING', 'FAILED') ORDER BY job_id")
          .map((rs, ctx) -> new Holder(ClaimOwner.job(rs.getLong("job_id")), "job " + rs.getLong("job_id"),
              "VIEW".equals(rs.getString("object_type")) ? List.of(LocationPath.parse(rs.getString("metadata_location")))
                  : rootsOf(rs.getString("metadata_location")), rs.getString("metadata_location")))
          .forEach(out::add);
      return out;
    });
  }

  /** The roots of a metadata file, or null (nothing requested) if a purge deleted it. */
  private List<LocationPath> existingRootsOf(String metadataFile) {
    return Files.exists(LocalFileIO.toPath(metadataFile)) ? rootsOf(metadataFile) : null;
  }

  private List<LocationPath> rootsOf(String metadataFile) {
    return TableRoots.of(TableMetadataParser.read(io, metadataFile)).roots();
  }

  /** Every row, claim and file: what a refused request must leave as it was. */
  private String snapshot() throws IOException {
    String rows = db.jdbi().withHandle(h -> String.join("\n",
        h.createQuery("SELECT table_id, namespace_id, name, metadata_location, deletion_id FROM lethe_table ORDER BY table_id")
            .mapToMap().list().toString(),
        h.createQuery("SELECT view_id, name, metadata_location FROM lethe_view ORDER BY view_id").mapToMap().list().toString(),
        h.createQuery("SELECT job_id, state FROM lethe_cleanup_job ORDER BY job_id").mapToMap().list().toString(),
        h.createQuery("SELECT deletion_id, state, purge_job_id FROM lethe_entity_deletion ORDER BY deletion_id").mapToMap().list().toString(),
        new LocationClaimDao(h).all().stream().map(c -> c.owner() + " " + c.root()).sorted().toList().toString()));
    try (Stream<Path> files = Files.exists(warehouse) ? Files.walk(warehouse) : Stream.empty()) {
      return rows + "\n" + files.filter(Files::isRegularFile).map(Path::toString).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private void remember(org.apache.iceberg.Table table) {
    metadataFiles.add(((BaseTable) table).operations().current().metadataFileLocation());
  }

  private TableIdentifier id(Holder h) {
    String label = h.label.substring(h.label.indexOf(' ') + 1);
    int dot = label.lastIndexOf('.');
    return TableIdentifier.of(Namespace.of(label.substring(0, dot)), label.substring(dot + 1));
  }

  private TableIdentifier fresh() {
    return TableIdentifier.of(NAMESPACES.get(random.nextInt(NAMESPACES.size())), "t" + (names++));
  }

  private String randomDir() {
    return warehouse.resolve(DIRS.get(random.nextInt(DIRS.size()))).toString();
  }

  private <T> T pickOne(List<T> from) {
    return from.get(random.nextInt(from.size()));
  }

  /** A random legal spelling of a local location (itself in any spelling). */
  private String spell(String location) {
    String path = LocationPath.parse(location).toString();
    int second = path.indexOf('/', 1);
    return switch (random.nextInt(7)) {
      case 0 -> path;
      case 1 -> "file:" + path;
      case 2 -> "file://" + path;
      case 3 -> "file://localhost" + path;
      case 4 -> path.substring(0, second) + "/" + path.substring(second);
      case 5 -> "file:" + path + (path.endsWith(".json") ? "" : "/");
      default -> "file:///" + path.substring(1).replace("/", random.nextBoolean() ? "/" : "//");
    };
  }
}
