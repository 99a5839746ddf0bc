package dev.lethe.catalog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.InvalidLocationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.ImmutableGenericPartitionStatisticsFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.BaseView;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rule 1 of issue 9 on the write side (docs/design/0001-purge-confinement-and-ownership.md §2), on
 * a real database: every location a create, register, commit or namespace change names must parse
 * and lie inside the catalog's allowed locations, refused with an {@link InvalidLocationException}
 * (400) before any file or row is written.
 */
class WriteConfinementCatalogTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("db");
  private static final TableIdentifier T = TableIdentifier.of(NS, "t");

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private Path warehouse;

  private LetheCatalog open(String backend) throws Exception {
    return open(backend, Map.of());
  }

  private LetheCatalog open(String backend, Map<String, String> properties) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    warehouse = tmp.resolve("warehouse");
    catalogs.ensureCatalog("main", warehouse.toString(), properties);
    LetheCatalog catalog = catalogs.catalog("main").orElseThrow();
    catalog.createNamespace(NS, Map.of());
    return catalog;
  }

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
  void aLocationNamingAnExistingFileWithAQueryOrFragmentIs400AndTheFileIsUntouched(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    Path existing = warehouse.resolve("db").resolve("precious.bin");
    Files.createDirectories(existing.getParent());
    Files.writeString(existing, "precious");
    Set<Path> before = files(tmp);

    for (String location : List.of("file:" + existing + "?", "file:" + existing + "#", existing + "?x",
        "file://" + existing + "#frag", "file:" + warehouse + "/db/../db/t")) {
      assertThatThrownBy(() -> catalog.buildTable(T, SCHEMA).withLocation(location).create()).as(location)
          .isInstanceOf(InvalidLocationException.class)
          .hasMessageContaining("table location");
      assertThatThrownBy(() -> catalog.checkCreateRequest(location, Map.of())).as(location)
          .isInstanceOf(InvalidLocationException.class);
      // a staged create builds the transaction without writing; its commit is refused the same way
      assertThatThrownBy(() -> catalog.buildTable(T, SCHEMA).withLocation(location).createTransaction().commitTransaction())
          .as(location).isInstanceOf(InvalidLocationException.class);
    }
    assertThat(Files.readString(existing)).isEqualTo("precious");
    assertThat(files(tmp)).isEqualTo(before);
    assertThat(catalog.tableExists(T)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aLocationOutsideTheWarehouseIs400UnlessTheCatalogAllowsIt(String backend) throws Exception {
    Path elsewhere = tmp.resolve("elsewhere");
    Path allowedDir = tmp.resolve("allowed");
    LetheCatalog catalog = open(backend, Map.of(AllowedLocations.PROPERTY, "file://" + allowedDir));

    assertThatThrownBy(() -> catalog.buildTable(T, SCHEMA).withLocation(elsewhere.resolve("t").toString()).create())
        .isInstanceOf(InvalidLocationException.class)
        .hasMessageContaining(elsewhere.resolve("t").toString())
        .hasMessageContaining("outside the catalog's allowed locations");
    assertThat(Files.exists(elsewhere)).isFalse();
    assertThat(catalog.tableExists(T)).isFalse();

    Table table = catalog.buildTable(T, SCHEMA).withLocation("file:" + allowedDir.resolve("t")).create();
    assertThat(Files.list(allowedDir.resolve("t").resolve("metadata")).count()).isEqualTo(1);
    assertThat(table.location()).isEqualTo("file:" + allowedDir.resolve("t"));
    // the default location (namespace directory under the warehouse) keeps working
    assertThat(catalog.createTable(TableIdentifier.of(NS, "d"), SCHEMA).location())
        .startsWith(warehouse.resolve("db").toString() + "/d-");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void writePathsAndLocationOutsideTheAllowedLocationsAreRefusedAtCreateAndAtCommit(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    String outside = tmp.resolve("outside").toString();
    for (String key : List.of("write.data.path", "write.metadata.path", "write.object-storage.path", "write.folder-storage.path")) {
      assertThatThrownBy(() -> catalog.buildTable(T, SCHEMA).withProperty(key, outside).create()).as(key)
          .isInstanceOf(InvalidLocationException.class).hasMessageContaining(key).hasMessageContaining(outside);
    }
    Table table = catalog.createTable(T, SCHEMA);
    Path metadataDir = Path.of(table.location(), "metadata");
    Set<Path> before = files(metadataDir);
    String current = ((BaseTable) table).operations().current().metadataFileLocation();

    assertThatThrownBy(() -> table.updateProperties().set("write.metadata.path", outside).commit())
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("write.metadata.path");
    assertThatThrownBy(() -> table.updateProperties().set("write.data.path", outside + "/../x").commit())
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("'..'");
    assertThatThrownBy(() -> table.updateLocation().setLocation(outside).commit())
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("table location");
    assertThatThrownBy(() -> table.updateLocation().setLocation("file:" + warehouse + "/db/x?").commit())
        .isInstanceOf(InvalidLocationException.class);

    assertThat(files(metadataDir)).isEqualTo(before);
    assertThat(Files.exists(Path.of(outside))).isFalse();
    assertThat(((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation()).isEqualTo(current);
    // inside the warehouse, a write path is fine
    table.updateProperties().set("write.data.path", "file://" + warehouse + "/data/t").commit();
    assertThat(catalog.loadTable(T).properties()).containsEntry("write.data.path", "file://" + warehouse + "/data/t");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void statisticsPathsAreCheckedForSpellingAtCommitButMayLieOutsideTheRoots(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    Table table = catalog.createTable(T, SCHEMA);
    table.newFastAppend().appendFile(dataFile(table.location() + "/data/a.parquet")).commit();
    long snapshotId = table.currentSnapshot().snapshotId();
    String dotDot = table.location() + "/../../../etc/passwd.stats";

    assertThatThrownBy(() -> table.updateStatistics().setStatistics(stats(snapshotId, dotDot)).commit())
        .isInstanceOf(InvalidLocationException.class)
        .hasMessageContaining("statistics file of snapshot " + snapshotId).hasMessageContaining("'..'");
    assertThatThrownBy(() -> table.updatePartitionStatistics().setPartitionStatistics(
            ImmutableGenericPartitionStatisticsFile.builder().snapshotId(snapshotId).path("file:/x/p.stats?v=1")
                .fileSizeInBytes(1).build()).commit())
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("partition statistics file");
    assertThat(catalog.loadTable(T).statisticsFiles()).isEmpty();

    // spelled properly, a statistics file may lie outside the table: a purge keeps it
    String outside = tmp.resolve("shared-stats").resolve("s.stats").toString();
    table.updateStatistics().setStatistics(stats(snapshotId, outside)).commit();
    assertThat(catalog.loadTable(T).statisticsFiles()).extracting(f -> f.path()).containsExactly(outside);
    // and a later commit that does not add paths is not blocked by it
    table.updateProperties().set("k", "v").commit();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void registerRefusesAMetadataFileOutsideItsTableRootsAndBadSpellings(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    Table table = catalog.createTable(T, SCHEMA);
    String metadata = ((BaseTable) table).operations().current().metadataFileLocation();
    catalog.dropTable(T, false);
    Path copy = warehouse.resolve("copies").resolve("v1.metadata.json");
    Files.createDirectories(copy.getParent());
    Files.copy(Path.of(metadata), copy);
    TableIdentifier r = TableIdentifier.of(NS, "r");

    assertThatThrownBy(() -> catalog.registerTable(r, copy.toString()))
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("outside the table location");
    assertThatThrownBy(() -> catalog.registerTable(r, metadata + "?"))
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("metadata file");
    assertThatThrownBy(() -> catalog.registerTable(r, "relative/v1.metadata.json"))
        .isInstanceOf(InvalidLocationException.class);
    assertThat(catalog.tableExists(r)).isFalse();
    catalog.registerTable(r, "file://" + metadata);
    assertThat(catalog.tableExists(r)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aNamespaceLocationMustBeAllowedAndIsTheDefaultForItsTables(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    Namespace other = Namespace.of("other");
    String outside = tmp.resolve("outside-ns").toString();
    assertThatThrownBy(() -> catalog.createNamespace(other, Map.of("location", outside)))
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("namespace location");
    assertThat(catalog.namespaceExists(other)).isFalse();
    assertThatThrownBy(() -> catalog.setProperties(NS, Map.of("location", outside)))
        .isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> catalog.setProperties(NS, Map.of("location", "file:" + warehouse + "/x#y")))
        .isInstanceOf(InvalidLocationException.class);
    assertThat(catalog.loadNamespaceMetadata(NS)).doesNotContainKey("location");

    String inside = warehouse.resolve("custom-ns").toString();
    catalog.createNamespace(other, Map.of("location", inside));
    assertThat(catalog.createTable(TableIdentifier.of(other, "t"), SCHEMA).location()).startsWith(inside + "/t-");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aMultiTableCommitWithOneRefusedLocationWritesNothing(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    TableIdentifier other = TableIdentifier.of(NS, "other");
    catalog.createTable(T, SCHEMA);
    catalog.createTable(other, SCHEMA);
    TableMetadata baseT = ((BaseTable) catalog.loadTable(T)).operations().current();
    TableMetadata baseOther = ((BaseTable) catalog.loadTable(other)).operations().current();
    Set<Path> before = files(warehouse);

    TableCommit good = TableCommit.create(T, baseT, TableMetadata.buildFrom(baseT).setProperties(Map.of("tx", "1")).build());
    TableCommit bad = TableCommit.create(other, baseOther,
        TableMetadata.buildFrom(baseOther).setLocation(tmp.resolve("outside").toString()).build());
    assertThatThrownBy(() -> catalog.commitTransaction(List.of(good, bad))).isInstanceOf(InvalidLocationException.class);

    assertThat(files(warehouse)).isEqualTo(before);
    assertThat(catalog.loadTable(T).properties()).doesNotContainKey("tx");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aCommitWhoseTableWasDroppedMeanwhileIs404NotAConflict(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createTable(T, SCHEMA);
    TableOperations ops = ((BaseTable) catalog.loadTable(T)).operations();
    TableMetadata base = ops.current();
    catalog.dropTable(T, false);
    assertThatThrownBy(() -> ops.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of("late", "1")).build()))
        .isInstanceOf(NoSuchTableException.class).hasMessageContaining("dropped");

    TableIdentifier v = TableIdentifier.of(NS, "v");
    View view = catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS)
        .withQuery("spark", "select 1").create();
    ViewOperations viewOps = ((BaseView) view).operations();
    org.apache.iceberg.view.ViewMetadata viewBase = viewOps.current();
    catalog.dropView(v);
    assertThatThrownBy(() -> viewOps.commit(viewBase,
            org.apache.iceberg.view.ViewMetadata.buildFrom(viewBase).setProperties(Map.of("late", "1")).build()))
        .isInstanceOf(NoSuchViewException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void viewLocationsAndRegisteredViewMetadataMustBeAllowed(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    TableIdentifier v = TableIdentifier.of(NS, "v");
    String outside = tmp.resolve("outside-view").toString();
    assertThatThrownBy(() -> catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS)
            .withQuery("spark", "select 1").withLocation(outside).create())
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("view location");
    assertThat(Files.exists(Path.of(outside))).isFalse();
    assertThatThrownBy(() -> catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS)
            .withQuery("spark", "select 1").withProperty("write.metadata.path", outside).create())
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("write.metadata.path");
    assertThat(catalog.viewExists(v)).isFalse();

    View view = catalog.buildView(v).withSchema(SCHEMA).withDefaultNamespace(NS).withQuery("spark", "select 1").create();
    String metadata = ((BaseView) view).operations().current().metadataFileLocation();
    catalog.dropView(v);
    Path copy = tmp.resolve("outside-copy").resolve("00001-copy.metadata.json");
    Files.createDirectories(copy.getParent());
    Files.copy(Path.of(metadata), copy);
    assertThatThrownBy(() -> catalog.registerView(v, copy.toString()))
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("view metadata file");
    assertThat(catalog.viewExists(v)).isFalse();
    catalog.registerView(v, metadata);
    assertThat(catalog.viewExists(v)).isTrue();
  }

  private static DataFile dataFile(String path) {
    return DataFiles.builder(PartitionSpec.unpartitioned()).withPath(path).withFileSizeInBytes(10)
        .withRecordCount(1).withFormat(FileFormat.PARQUET).build();
  }

  private static GenericStatisticsFile stats(long snapshotId, String path) {
    return new GenericStatisticsFile(snapshotId, path, 1, 1, List.of());
  }

  private static Set<Path> files(Path root) throws IOException {
    if (!Files.exists(root)) {
      return Set.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> !p.toString().contains("/catalog")).collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }
}
