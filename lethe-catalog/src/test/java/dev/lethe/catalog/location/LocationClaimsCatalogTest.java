package dev.lethe.catalog.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.drop.AsyncPurgeService;
import dev.lethe.catalog.softdelete.DeletionDao;
import dev.lethe.catalog.softdelete.DeletionState;
import dev.lethe.catalog.softdelete.SoftDeletePlanner;
import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import dev.lethe.catalog.softdelete.SoftDeletes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.BaseView;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rule 2 of issue 9, "one live owner" (docs/design/0001-purge-confinement-and-ownership.md §3), on a
 * real database: every entry that can become live holds location claims, and every path that
 * would let two of them overlap answers 409 naming the other entry, however the paths are spelled.
 */
class LocationClaimsCatalogTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("db");
  private static final TableIdentifier ORIG = TableIdentifier.of(NS, "orig");
  private static final TableIdentifier COPY = TableIdentifier.of(NS, "copy");

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private LetheCatalog catalog;
  private CatalogRow row;
  private Path warehouse;
  private CredentialCipher cipher;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  private void open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    warehouse = tmp.resolve("warehouse");
    catalogs.ensureCatalog("main", warehouse.toString(), Map.of());
    catalog = catalogs.catalog("main").orElseThrow();
    row = catalog.row();
    catalog.createNamespace(NS, Map.of());
    cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  private String metadataOf(TableIdentifier id) {
    return ((BaseTable) catalog.loadTable(id)).operations().current().metadataFileLocation();
  }

  private List<LocationClaim> claims() {
    return db.jdbi().withHandle(h -> new LocationClaimDao(h).all());
  }

  private TableRow tableRow(TableIdentifier id) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT table_id FROM lethe_table WHERE name = :n AND deleted_at = 0")
        .bind("n", id.name()).mapTo(String.class).findOne().flatMap(tid -> new dev.lethe.catalog.entity.TableDao(h).findById(tid)))
        .orElseThrow();
  }

  /** The spellings of one local path that must all be recognised as that path. */
  private static List<String> spellings(String path) {
    int second = path.indexOf('/', 1);
    return List.of(path, "file:" + path, "file://" + path, "file://localhost" + path,
        path.substring(0, second) + "/" + path.substring(second), "file:" + path.substring(0, second) + "//" + path.substring(second + 1));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void registeringALiveTablesMetadataUnderAnotherNameIs409OnEverySpelling(String backend) throws Exception {
    open(backend);
    catalog.createTable(ORIG, SCHEMA);
    String metadata = metadataOf(ORIG);
    List<LocationClaim> before = claims();
    for (String spelling : spellings(metadata)) {
      assertThatThrownBy(() -> catalog.registerTable(COPY, spelling)).as(spelling)
          .isInstanceOf(AlreadyExistsException.class)
          .hasMessageStartingWith("Cannot register db.copy")
          .hasMessageContaining("held by live table db.orig");
      assertThatThrownBy(() -> catalog.registerTable(TableIdentifier.of(NS, "other"), spelling, true)).as(spelling)
          .isInstanceOf(AlreadyExistsException.class);
    }
    assertThat(catalog.tableExists(COPY)).isFalse();
    assertThat(claims()).isEqualTo(before);
    // the live table's own older metadata, by any spelling, may be re-pointed to
    catalog.registerTable(ORIG, "file://localhost" + metadata, true);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void overlappingLocationsAre409WhicheverContainsTheOtherAndAtCommit(String backend) throws Exception {
    open(backend);
    Path a = warehouse.resolve("db").resolve("a");
    catalog.buildTable(ORIG, SCHEMA).withLocation(a.toString()).create();
    assertThatThrownBy(() -> catalog.buildTable(COPY, SCHEMA).withLocation("file://" + a.resolve("inner")).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("overlaps " + a);
    assertThatThrownBy(() -> catalog.buildTable(COPY, SCHEMA).withLocation("file:" + warehouse.resolve("db") + "/").create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("held by live table db.orig");
    assertThatThrownBy(() -> catalog.buildTable(COPY, SCHEMA).withProperty("write.data.path", a + "//data").create())
        .isInstanceOf(AlreadyExistsException.class);
    assertThat(Files.exists(a.resolve("inner"))).isFalse();

    Table other = catalog.createTable(COPY, SCHEMA);
    String otherMetadata = metadataOf(COPY);
    long filesInA;
    try (var s = Files.walk(a)) {
      filesInA = s.count();
    }
    assertThatThrownBy(() -> other.updateLocation().setLocation("file:///" + a).commit())
        .isInstanceOf(LocationHeldException.class).hasMessageStartingWith("Cannot commit db.copy");
    assertThatThrownBy(() -> other.updateProperties().set("write.metadata.path", a.resolve("metadata").toString()).commit())
        .isInstanceOf(LocationHeldException.class);
    try (var s = Files.walk(a)) {
      assertThat(s.count()).as("no metadata file written into the other table's location").isEqualTo(filesInA);
    }
    assertThat(metadataOf(COPY)).isEqualTo(otherMetadata);
    // a move to a free location is a commit like any other, and the old location is free again
    Path moved = warehouse.resolve("db").resolve("moved");
    other.updateLocation().setLocation(moved.toString()).commit();
    assertThat(claims()).extracting(c -> c.root().toString()).containsExactlyInAnyOrder(a.toString(), moved.toString());
    catalog.buildTable(TableIdentifier.of(NS, "third"), SCHEMA).withLocation(Path.of(otherMetadata).getParent().getParent().toString()).create();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aMultiTableCommitMayMoveATableInsideItsOwnLocationButNotIntoAnothers(String backend) throws Exception {
    open(backend);
    Table orig = catalog.createTable(ORIG, SCHEMA);
    Table copy = catalog.createTable(COPY, SCHEMA);
    org.apache.iceberg.TableMetadata baseOrig = ((BaseTable) orig).operations().current();
    org.apache.iceberg.TableMetadata baseCopy = ((BaseTable) copy).operations().current();
    String inside = orig.location() + "/moved";
    catalog.commitTransaction(List.of(org.apache.iceberg.catalog.TableCommit.create(ORIG, baseOrig,
        org.apache.iceberg.TableMetadata.buildFrom(baseOrig).setLocation(inside).build())));
    assertThat(catalog.loadTable(ORIG).location()).isEqualTo(inside);

    long files;
    try (var s = Files.walk(Path.of(inside))) {
      files = s.count();
    }
    assertThatThrownBy(() -> catalog.commitTransaction(List.of(org.apache.iceberg.catalog.TableCommit.create(COPY, baseCopy,
            org.apache.iceberg.TableMetadata.buildFrom(baseCopy).setLocation("file://" + inside + "/x").build()))))
        .isInstanceOf(LocationHeldException.class).hasMessageStartingWith("Cannot commit db.copy")
        .hasMessageContaining("held by live table db.orig");
    try (var s = Files.walk(Path.of(inside))) {
      assertThat(s.count()).isEqualTo(files);
    }
    assertThat(catalog.loadTable(COPY).location()).isEqualTo(copy.location());
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aPendingPurgeJobHoldsTheLocationUntilItEndsAndIsNamed(String backend) throws Exception {
    open(backend);
    String origLocation = catalog.createTable(ORIG, SCHEMA).location();
    String metadata = metadataOf(ORIG);
    // no worker runs yet: the job stays PENDING
    CleanupJob job = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory()).dropTable(row, ORIG, "alice");
    assertThat(job.state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(claims()).extracting(LocationClaim::owner).containsOnly(ClaimOwner.job(job.jobId()));

    assertThatThrownBy(() -> catalog.registerTable(COPY, metadata))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("cleanup job " + job.jobId() + " (PENDING) purging the dropped table db.orig");
    assertThatThrownBy(() -> catalog.buildTable(COPY, SCHEMA).withLocation(origLocation).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + job.jobId());
    assertThat(catalog.tableExists(COPY)).isFalse();

    // the job ends: its claims go in the transaction that writes SUCCEEDED, and the location is free
    AsyncPurgeService purge = new AsyncPurgeService(db, "default", new AsyncPurgeSettings(1, 1, 100, 20, 60_000, 3, 720),
        cipher, new SimpleMeterRegistry(), e -> {}, Clock.systemUTC());
    closeables.add(purge);
    await().atMost(Duration.ofSeconds(30)).until(() -> db.jdbi().withHandle(h -> new CleanupJobDao(h).find(job.jobId()))
        .orElseThrow().state() == CleanupJobState.SUCCEEDED);
    assertThat(claims()).isEmpty();
    catalog.buildTable(COPY, SCHEMA).withLocation(origLocation).create();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRetainedSoftDeletedTableHoldsItsLocationAndUndropIsRefusedWhenAnotherEntryOverlaps(String backend) throws Exception {
    open(backend);
    SoftDeletes soft = new SoftDeletes(db, "default", new SoftDeleteSettings(true, 86_400_000L, 1000), cipher,
        new FileIOFactory(), () -> UUID.randomUUID().toString());
    TableIdentifier x = TableIdentifier.of(NS, "x");
    TableIdentifier y = TableIdentifier.of(NS, "y");
    TableIdentifier z = TableIdentifier.of(NS, "z");
    catalog.createTable(x, SCHEMA);
    String metadata = metadataOf(x);
    TableRow xRow = tableRow(x);
    assertThat(soft.drop(row, x, "alice", true)).isInstanceOf(SoftDeletePlanner.CreateRecord.class);

    assertThatThrownBy(() -> catalog.registerTable(y, metadata))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("the dropped table db.x, retained by deletion");
    assertThat(catalog.tableExists(y)).isFalse();

    // an overlapping live entry that got in behind the guard's back (a row and a claim written directly)
    db.jdbi().useTransaction(h -> {
      new dev.lethe.catalog.entity.TableDao(h).insert(new TableRow("z-id", row.catalogId(), xRow.namespaceId(), "z",
          metadata, null, 0L, null, 1L, 1L));
      new LocationClaimDao(h).insert(ClaimOwner.table("z-id"), TableRoots.assumedFromMetadataFile(metadata).get(0), 1L);
    });
    assertThatThrownBy(() -> soft.restore(row, x))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageStartingWith("Cannot undrop db.x")
        .hasMessageContaining("held by live table db.z");
    assertThat(soft.load(row, x)).hasValueSatisfying(d -> assertThat(d.record().state()).isEqualTo(DeletionState.DELETED));
    assertThat(catalog.tableExists(x)).isFalse();
    // purge-now hands the location to a job: refused the same way while z overlaps it
    assertThatThrownBy(() -> soft.purgeNow(row, x, "admin"))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("db.z");
    assertThat(db.jdbi().withHandle(h -> new DeletionDao(h).find(soft.load(row, x).orElseThrow().record().deletionId()))
        .orElseThrow().purgeJobId()).isNull();

    assertThat(catalog.dropTable(z, false)).isTrue();
    assertThat(soft.restore(row, x)).isInstanceOf(SoftDeletePlanner.Restore.class);
    assertThat(catalog.tableExists(x)).isTrue();
    // soft-drop again and purge now: the job takes the location over and is named
    soft.drop(row, x, "alice", true);
    SoftDeletes.Claimed claimed = soft.purgeNow(row, x, "admin");
    assertThat(claims()).extracting(LocationClaim::owner).containsOnly(ClaimOwner.job(claimed.purgeJobId()));
    assertThatThrownBy(() -> catalog.registerTable(y, metadata))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + claimed.purgeJobId());
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void dropsReleaseOrHandOverAndASynchronousPurgeChecksFirst(String backend) throws Exception {
    open(backend);
    catalog.createTable(ORIG, SCHEMA);
    String metadata = metadataOf(ORIG);
    assertThat(catalog.dropTable(ORIG, false)).isTrue();
    assertThat(claims()).isEmpty();
    catalog.registerTable(COPY, "file://" + metadata); // the documented way to move a table
    assertThat(claims()).hasSize(1);
    assertThat(catalog.dropTable(COPY, true)).isTrue();
    assertThat(claims()).isEmpty();
    assertThat(Files.exists(Path.of(metadata))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void viewsHoldTheirMetadataFileSoAViewOnATablesFilesIsRefused(String backend) throws Exception {
    open(backend);
    Table orig = catalog.createTable(ORIG, SCHEMA);
    TableIdentifier v = TableIdentifier.of(NS, "v");
    View view = catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS).withQuery("spark", "select 1").create();
    String viewMetadata = ((BaseView) view).operations().current().metadataFileLocation();
    assertThat(claims()).extracting(c -> c.root().toString()).contains(viewMetadata);
    catalog.dropView(v);
    assertThat(claims()).extracting(c -> c.root().toString()).doesNotContain(viewMetadata);

    // a view metadata file placed inside a live table's location: registering it is refused
    Path inside = Path.of(orig.location(), "metadata", Path.of(viewMetadata).getFileName().toString());
    Files.copy(Path.of(viewMetadata), inside);
    assertThatThrownBy(() -> catalog.registerView(v, "file:" + inside))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageStartingWith("Cannot register view db.v").hasMessageContaining("held by live table db.orig");
    assertThatThrownBy(() -> catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS).withQuery("spark", "select 1")
            .withLocation(orig.location()).create())
        .isInstanceOf(AlreadyExistsException.class);
    assertThat(catalog.viewExists(v)).isFalse();

    // and a table whose location would hold a view's metadata file is refused, naming the view
    catalog.registerView(v, viewMetadata);
    assertThatThrownBy(() -> catalog.buildTable(COPY, SCHEMA).withLocation(Path.of(viewMetadata).getParent().toString()).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("view db.v (its metadata file)");
    // an async view drop hands the file to the job
    CleanupJob job = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory()).dropView(row, v, "alice");
    assertThat(claims()).filteredOn(c -> c.owner().equals(ClaimOwner.job(job.jobId())))
        .extracting(c -> c.root().toString()).containsExactly(viewMetadata);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void concurrentRegistersOfOneMetadataFileOnTwoServersLetExactlyOneWin(String backend) throws Exception {
    open(backend);
    // a second catalog instance on its own connection pool: another server on the same database
    CatalogDatabase db2 = CatalogDatabase.open(settings);
    IcebergCatalogs catalogs2 = new IcebergCatalogs(db2, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    closeables.add(db2);
    closeables.add(0, catalogs2);
    LetheCatalog other = catalogs2.catalog("main").orElseThrow();
    int racers = 6;
    // one namespace per racer, so the namespace row lock of a create does not serialize them: only the claims lock can
    for (int i = 0; i < racers; i++) {
      catalog.createNamespace(Namespace.of("n" + i), Map.of());
    }
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    closeables.add(pool::shutdownNow);
    for (int round = 0; round < 5; round++) {
      TableIdentifier source = TableIdentifier.of(NS, "src" + round);
      catalog.createTable(source, SCHEMA);
      String metadata = metadataOf(source);
      catalog.dropTable(source, false);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      List<String> spellings = spellings(metadata);
      for (int i = 0; i < racers; i++) {
        LetheCatalog c = i % 2 == 0 ? catalog : other;
        TableIdentifier id = TableIdentifier.of(Namespace.of("n" + i), "r" + round);
        String spelling = spellings.get(i % spellings.size());
        Callable<Boolean> register = () -> {
          start.await();
          try {
            c.registerTable(id, spelling);
            return true;
          } catch (AlreadyExistsException e) {
            return false;
          }
        };
        results.add(pool.submit(register));
      }
      start.countDown();
      int winners = 0;
      for (Future<Boolean> f : results) {
        winners += f.get() ? 1 : 0;
      }
      assertThat(winners).as("round %d", round).isEqualTo(1);
    }
    assertThat(claims()).hasSize(5);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theBackfillGivesClaimsToRowsOlderThanClaimsAndTheSweepQueryFindsClaimsInsideARoot(String backend) throws Exception {
    open(backend);
    catalog.createTable(ORIG, SCHEMA);
    TableIdentifier v = TableIdentifier.of(NS, "v");
    catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS).withQuery("spark", "select 1").create();
    catalog.buildTable(TableIdentifier.of(NS, "custom"), SCHEMA).withLocation(warehouse.resolve("db").resolve("custom").toString())
        .withProperty("write.data.path", warehouse.resolve("data").resolve("custom").toString()).create();
    List<LocationClaim> expected = claims();
    // as a database migrated from V3: no claims at all
    db.jdbi().useHandle(h -> h.execute("DELETE FROM lethe_location_claim"));
    assertThat(new ClaimBackfill(db, new FileIOFactory(), Clock.systemUTC()).run()).isEqualTo(3);
    assertThat(claims()).extracting(c -> c.owner().toString() + " " + c.root())
        .containsExactlyInAnyOrderElementsOf(expected.stream().map(c -> c.owner().toString() + " " + c.root()).toList());
    assertThat(new ClaimBackfill(db, new FileIOFactory(), Clock.systemUTC()).run()).isZero();

    LocationPath dbDir = LocationPath.parse(warehouse.resolve("db").toString());
    List<LocationPath> inside = db.jdbi().withHandle(h -> LocationClaims.claimedInside(h, dbDir, null));
    assertThat(inside).hasSize(3); // orig, the view's metadata file, custom (its data path is elsewhere)
    ClaimOwner origOwner = ClaimOwner.table(tableRow(ORIG).tableId());
    List<LocationPath> others = db.jdbi().withHandle(h -> LocationClaims.claimedInside(h, dbDir, origOwner));
    assertThat(others).hasSize(2);
    List<LocationPath> data = db.jdbi().withHandle(h -> LocationClaims.claimedInside(h,
        LocationPath.parse("file://" + warehouse.resolve("data")), null));
    assertThat(data).extracting(LocationPath::toString).containsExactly(warehouse.resolve("data").resolve("custom").toString());
  }
}
