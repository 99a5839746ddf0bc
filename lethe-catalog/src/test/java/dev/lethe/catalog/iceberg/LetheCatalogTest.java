package dev.lethe.catalog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.location.ClaimBackfill;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LetheCatalogTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("db");
  private static final TableIdentifier T = TableIdentifier.of(NS, "t");

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;

  private LetheCatalog open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(), Map.of());
    return catalogs.catalog("main").orElseThrow();
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
  void staleCommitIsRejectedWithCommitFailedAndKeepsTheWinner(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    Table table = catalog.createTable(T, SCHEMA);
    TableOperations a = ((BaseTable) catalog.loadTable(T)).operations();
    TableOperations b = ((BaseTable) catalog.loadTable(T)).operations();
    TableMetadata base = a.current();

    a.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of("winner", "a")).build());
    assertThatThrownBy(() -> b.commit(base, TableMetadata.buildFrom(base).setProperties(Map.of("winner", "b")).build()))
        .isInstanceOf(CommitFailedException.class);

    assertThat(catalog.loadTable(T).properties()).containsEntry("winner", "a");
    assertThat(table.location()).startsWith(tmp.resolve("warehouse").resolve("db").toString() + "/t-");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void rowMarkedDeletedByDeletionIdIsInvisibleToEveryRead(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    catalog.createTable(T, SCHEMA);
    db.jdbi().useHandle(h -> {
      h.execute("INSERT INTO lethe_entity_deletion (deletion_id, entity_type, entity_id, state, deleted_at, "
          + "retention_expires_at, deleted_by, purge_requested, purge_job_id) "
          + "SELECT 'd-1', 'TABLE', table_id, 'DELETED', 1, 2, 'alice', FALSE, NULL FROM lethe_table");
      h.execute("UPDATE lethe_table SET deletion_id = 'd-1'");
    });

    assertThat(catalog.tableExists(T)).isFalse();
    assertThat(catalog.listTables(NS)).isEmpty();
    assertThat(catalog.dropTable(T, false)).isFalse();
    assertThatThrownBy(() -> catalog.dropNamespace(NS)).isInstanceOf(NamespaceNotEmptyException.class)
        .hasMessageContaining("retained deletion").hasMessageContaining("t (entity id ").hasMessageNotContaining("d-1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namespaceDropsOnlyWhenEmptyAndTablesNeedTheirNamespace(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    assertThatThrownBy(() -> catalog.createTable(T, SCHEMA)).isInstanceOf(NoSuchNamespaceException.class);
    catalog.createNamespace(NS, Map.of("owner", "me"));
    assertThatThrownBy(() -> catalog.createNamespace(NS, Map.of())).isInstanceOf(AlreadyExistsException.class);
    catalog.createNamespace(Namespace.of("db", "child"), Map.of());
    catalog.createTable(T, SCHEMA);

    assertThat(catalog.listNamespaces()).containsExactly(NS);
    assertThat(catalog.listNamespaces(NS)).containsExactly(Namespace.of("db", "child"));
    assertThatThrownBy(() -> catalog.dropNamespace(NS)).isInstanceOf(NamespaceNotEmptyException.class);
    assertThat(catalog.dropTable(T, false)).isTrue();
    assertThatThrownBy(() -> catalog.dropNamespace(NS)).isInstanceOf(NamespaceNotEmptyException.class);
    assertThat(catalog.dropNamespace(Namespace.of("db", "child"))).isTrue();
    assertThat(catalog.dropNamespace(NS)).isTrue();
    assertThat(catalog.listNamespaces()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void dropWithoutPurgeKeepsFilesAndPurgeDeletesThem(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    Table table = catalog.createTable(T, SCHEMA);
    String metadata = ((BaseTable) table).operations().current().metadataFileLocation();

    assertThat(catalog.dropTable(T, false)).isTrue();
    assertThat(Files.exists(Path.of(metadata))).isTrue();

    catalog.registerTable(T, metadata);
    assertThat(catalog.listTables(NS)).isEqualTo(List.of(T));
    assertThat(catalog.dropTable(T, true)).isTrue();
    assertThat(Files.exists(Path.of(metadata))).isFalse();
    assertThat(catalog.tableExists(T)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namesWithSlashOrControlCharactersAreRejectedBeforeAnyChange(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    assertThatThrownBy(() -> catalog.createNamespace(Namespace.of("a/b"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/'");
    catalog.createNamespace(NS, Map.of());
    assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of(NS, "t\u0001"), SCHEMA))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control character");
    assertThat(catalog.listNamespaces()).containsExactly(NS);
    assertThat(catalog.listTables(NS)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void multiTableCommitAppliesNothingWhenOneTableFailsItsRequirements(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    TableIdentifier other = TableIdentifier.of(NS, "other");
    catalog.createTable(T, SCHEMA);
    catalog.createTable(other, SCHEMA);
    TableMetadata baseT = ((BaseTable) catalog.loadTable(T)).operations().current();
    TableMetadata baseOther = ((BaseTable) catalog.loadTable(other)).operations().current();
    // another client changes the schema of "other" after both bases were read
    catalog.loadTable(other).updateSchema().addColumn("by_other", Types.StringType.get()).commit();

    Schema mine = new Schema(SCHEMA.columns().get(0), Types.NestedField.optional(2, "mine", Types.StringType.get()));
    TableCommit onT = TableCommit.create(T, baseT, TableMetadata.buildFrom(baseT).setProperties(Map.of("tx", "1")).build());
    TableCommit onOther = TableCommit.create(other, baseOther,
        TableMetadata.buildFrom(baseOther).setCurrentSchema(mine, 2).build());
    assertThatThrownBy(() -> catalog.commitTransaction(List.of(onT, onOther))).isInstanceOf(CommitFailedException.class);

    assertThat(catalog.loadTable(T).properties()).doesNotContainKey("tx");
    assertThat(catalog.loadTable(other).schema().findField("mine")).isNull();
    assertThat(catalog.loadTable(other).schema().findField("by_other")).isNotNull();

    catalog.commitTransaction(List.of(onT));
    assertThat(catalog.loadTable(T).properties()).containsEntry("tx", "1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void registerWithOverwriteRepointsTheEntryAndKeepsFiles(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    catalog.createTable(T, SCHEMA);
    String first = ((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation();
    catalog.loadTable(T).updateProperties().set("v", "2").commit();
    String second = ((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation();

    assertThatThrownBy(() -> catalog.registerTable(T, first)).isInstanceOf(AlreadyExistsException.class);
    catalog.registerTable(T, first, true);

    assertThat(((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation()).isEqualTo(first);
    assertThat(catalog.loadTable(T).properties()).doesNotContainKey("v");
    assertThat(Files.exists(Path.of(second))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void registeringALiveTablesMetadataUnderAnotherNameIs409AndCreatesNothing(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    catalog.createNamespace(Namespace.of("other"), Map.of());
    catalog.createTable(T, SCHEMA);
    String first = ((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation();
    catalog.loadTable(T).updateProperties().set("v", "2").commit();
    String current = ((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation();
    TableIdentifier copy = TableIdentifier.of("other", "copy");

    for (String metadata : List.of(current, first)) {
      assertThatThrownBy(() -> catalog.registerTable(copy, metadata))
          .isInstanceOf(AlreadyExistsException.class)
          .hasMessageContaining("is held by live table db.t");
    }
    TableIdentifier sibling = TableIdentifier.of(NS, "t2");
    catalog.createTable(sibling, SCHEMA);
    String siblingMetadata = ((BaseTable) catalog.loadTable(sibling)).operations().current().metadataFileLocation();
    assertThatThrownBy(() -> catalog.registerTable(T, siblingMetadata, true)).isInstanceOf(AlreadyExistsException.class);

    assertThat(catalog.tableExists(copy)).isFalse();
    assertThat(((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation()).isEqualTo(current);
    catalog.registerTable(T, first, true); // its own older metadata is fine
    catalog.dropTable(T, false);
    catalog.registerTable(copy, current); // once the entry is gone, registering elsewhere is fine
    assertThat(catalog.tableExists(copy)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void purgeRefusesWhileAnotherLiveEntryUsesTheSameMetadataAndDeletesNothing(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    catalog.createTable(T, SCHEMA);
    String metadata = ((BaseTable) catalog.loadTable(T)).operations().current().metadataFileLocation();
    // a second entry on the same metadata, as a server older than location claims could have left it;
    // the start-up backfill gives it claims (and warns about the overlap)
    db.jdbi().useHandle(h -> h.execute(
        "INSERT INTO lethe_table (table_id, catalog_id, namespace_id, name, metadata_location, "
            + "previous_metadata_location, deleted_at, deletion_id, created_at, updated_at) "
            + "SELECT 'dup', catalog_id, namespace_id, 'dup', metadata_location, NULL, 0, NULL, 0, 0 FROM lethe_table"));
    assertThat(new ClaimBackfill(db, new FileIOFactory(), Clock.systemUTC()).run()).isEqualTo(1);
    assertThat(new ClaimBackfill(db, new FileIOFactory(), Clock.systemUTC()).run()).isZero();
    TableIdentifier dup = TableIdentifier.of(NS, "dup");

    assertThatThrownBy(() -> catalog.dropTable(T, true))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("db.dup");
    assertThat(Files.exists(Path.of(metadata))).isTrue();
    assertThat(catalog.tableExists(T)).isTrue();

    assertThat(catalog.dropTable(dup, false)).isTrue();
    assertThat(catalog.dropTable(T, true)).isTrue();
    assertThat(Files.exists(Path.of(metadata))).isFalse();
  }
}
