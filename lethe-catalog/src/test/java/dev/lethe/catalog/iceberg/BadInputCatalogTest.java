package dev.lethe.catalog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Input at and over the catalog's limits, on every backend: each accepted name works end to end,
 * each refusal is an {@link IllegalArgumentException} (400) raised before any row or file is written
 * (docs/design/0400-strict-request-input.md, 0401-name-and-column-limits.md, 0402-exact-name-comparison.md).
 */
class BadInputCatalogTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("db");

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;

  private LetheCatalog open(String backend) throws Exception {
    return open(backend, Map.of());
  }

  private LetheCatalog open(String backend, Map<String, String> properties) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", warehouse().toString(), properties);
    return catalogs.catalog("main").orElseThrow();
  }

  private Path warehouse() {
    return tmp.resolve("warehouse");
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

  private List<Path> warehouseFiles() throws IOException {
    if (!Files.exists(warehouse())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(warehouse())) {
      return files.filter(Files::isRegularFile).sorted().toList();
    }
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void everyDocumentedTableNameLengthGetsADirectoryInBytesAndInCharacters(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    String e = "\u00e9"; // 2 UTF-8 bytes
    String han = "\u65e5"; // 3 UTF-8 bytes
    String emoji = "\ud83d\ude00"; // 4 UTF-8 bytes, 2 UTF-16 code units
    List<String> names = List.of("a".repeat(222), "b".repeat(223), "c".repeat(254), "d".repeat(255),
        e.repeat(127), e.repeat(128), e.repeat(255), han.repeat(85), han.repeat(255), emoji.repeat(127) + "x");
    for (String name : names) {
      Table table = catalog.createTable(TableIdentifier.of(NS, name), SCHEMA);
      String dir = table.location().substring(table.location().lastIndexOf('/') + 1);
      assertThat(utf8(dir)).as("directory of a %d-byte name", utf8(name)).isLessThanOrEqualTo(255);
      assertThat(catalog.loadTable(TableIdentifier.of(NS, name)).location()).isEqualTo(table.location());
    }
    assertThat(catalog.listTables(NS)).hasSize(names.size());
    for (String tooLong : List.of("f".repeat(256), e.repeat(256), emoji.repeat(128))) {
      assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of(NS, tooLong), SCHEMA))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 255 characters");
    }
    assertThat(catalog.listTables(NS)).hasSize(names.size());
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void longNamesWithoutTheUniqueSuffixAndLongNamespaceLevelsGetBoundedDirectoriesToo(String backend) throws Exception {
    LetheCatalog catalog = open(backend, Map.of(LetheCatalog.UNIQUE_TABLE_LOCATION, "false"));
    Namespace ns = Namespace.of("\u65e5".repeat(255));
    catalog.createNamespace(ns, Map.of());
    String fits = "g".repeat(255);
    String shared = "\u00e9".repeat(200);
    Table a = catalog.createTable(TableIdentifier.of(ns, fits), SCHEMA);
    Table b = catalog.createTable(TableIdentifier.of(ns, shared + "a"), SCHEMA);
    Table c = catalog.createTable(TableIdentifier.of(ns, shared + "b"), SCHEMA);
    assertThat(a.location()).endsWith("/" + fits);
    assertThat(b.location()).isNotEqualTo(c.location()); // same cut prefix, different hash
    for (Table t : List.of(a, b, c)) {
      for (String segment : t.location().split("/")) {
        assertThat(utf8(segment)).isLessThanOrEqualTo(255);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namespaceNamesUpTo512CharactersAreStoredAnd513IsRefused(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    Namespace n511 = Namespace.of("a".repeat(255), "b".repeat(255));
    Namespace n512 = Namespace.of("c".repeat(255), "d".repeat(254), "e");
    Namespace n513 = Namespace.of("f".repeat(255), "g".repeat(255), "h");
    assertThat(NamespaceNamesLength.of(n511)).isEqualTo(511);
    assertThat(NamespaceNamesLength.of(n512)).isEqualTo(512);
    assertThat(NamespaceNamesLength.of(n513)).isEqualTo(513);
    catalog.createNamespace(Namespace.of("a".repeat(255)), Map.of());
    catalog.createNamespace(n511, Map.of());
    catalog.createNamespace(Namespace.of("c".repeat(255)), Map.of());
    catalog.createNamespace(Namespace.of("c".repeat(255), "d".repeat(254)), Map.of());
    catalog.createNamespace(n512, Map.of());
    assertThat(catalog.namespaceExists(n511)).isTrue();
    assertThat(catalog.namespaceExists(n512)).isTrue();
    assertThat(catalog.createTable(TableIdentifier.of(n512, "t"), SCHEMA).location()).contains("/e/t-");
    assertThatThrownBy(() -> catalog.createNamespace(n513, Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("513 characters, over the limit of 512");
    Namespace deep = Namespace.of(java.util.Collections.nCopies(2000, "x").toArray(String[]::new));
    assertThatThrownBy(() -> catalog.createNamespace(deep, Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over the limit of 512");
    assertThat(catalog.listNamespaces()).hasSize(2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namespacePropertiesFitTheirColumnOrAreRefusedBeforeAnyWrite(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    // {"k":"<n x's>"} is 8 + n bytes of JSON
    int fits = ColumnLimits.NAMESPACE_PROPERTIES_JSON_BYTES - 8;
    catalog.createNamespace(NS, Map.of("k", "x".repeat(fits)));
    assertThat(catalog.loadNamespaceMetadata(NS).get("k")).hasSize(fits);
    assertThatThrownBy(() -> catalog.createNamespace(Namespace.of("big"), Map.of("k", "x".repeat(fits + 1))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65536 bytes, over the limit of 65535");
    assertThatThrownBy(() -> catalog.createNamespace(Namespace.of("huge"), Map.of("k", "x".repeat(1_000_000))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over the limit of 65535");
    assertThatThrownBy(() -> catalog.setProperties(NS, Map.of("k2", "y")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over the limit of 65535");
    assertThat(catalog.loadNamespaceMetadata(NS)).containsOnlyKeys("k");
    assertThat(catalog.listNamespaces()).containsExactly(NS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aTableLocationWhoseMetadataPathOverflowsTheColumnIsRefusedAndWritesNoFile(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    String base = warehouse().toAbsolutePath() + "/db";
    // the metadata file is <location>/metadata/<at most 64 characters>: 2048 exactly fits
    String fitting = padLocation(base, ColumnLimits.METADATA_LOCATION_CHARS - "/metadata/".length() - 64);
    String over = padLocation(base, fitting.length() + 1);
    Table ok = catalog.buildTable(TableIdentifier.of(NS, "fits"), SCHEMA).withLocation(fitting).create();
    assertThat(ok.location()).isEqualTo(fitting);
    List<Path> before = warehouseFiles();
    assertThatThrownBy(() -> catalog.buildTable(TableIdentifier.of(NS, "over"), SCHEMA).withLocation(over).create())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over the limit of 2048");
    assertThat(warehouseFiles()).isEqualTo(before);
    assertThat(catalog.listTables(NS)).containsExactly(TableIdentifier.of(NS, "fits"));
    String longFile = padLocation(base, ColumnLimits.METADATA_LOCATION_CHARS + 1 - ".metadata.json".length()) + ".metadata.json";
    assertThatThrownBy(() -> catalog.registerTable(TableIdentifier.of(NS, "reg"), longFile))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("over the limit of 2048");
  }

  /** {@code base} followed by 200-character segments, exactly {@code length} characters long. */
  private static String padLocation(String base, int length) {
    StringBuilder sb = new StringBuilder(base);
    while (length - sb.length() > 202) {
      sb.append('/').append("p".repeat(200));
    }
    int last = length - sb.length() - 1;
    sb.append('/').append("q".repeat(last));
    assertThat(sb).hasSize(length);
    return sb.toString();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void registeringAFileThatIsNotJsonIsRefusedAndCreatesNothing(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    Path file = warehouse().resolve("db/junk/metadata/00000-" + UUID.randomUUID() + ".metadata.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "this is not json");
    assertThatThrownBy(() -> catalog.registerTable(TableIdentifier.of(NS, "t"), file.toString()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not JSON");
    Files.writeString(file, "{\"format-version\": 2}");
    assertThatThrownBy(() -> catalog.registerTable(TableIdentifier.of(NS, "t"), file.toString()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not valid table metadata");
    assertThatThrownBy(() -> catalog.registerView(TableIdentifier.of(NS, "v"), file.toString()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not valid view metadata");
    assertThat(catalog.listTables(NS)).isEmpty();
    assertThat(catalog.listViews(NS)).isEmpty();
    assertThat(warehouseFiles()).containsExactly(file);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void unpairedSurrogatesAreRefusedInNamesAndPropertyKeys(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    catalog.createNamespace(NS, Map.of());
    assertThatThrownBy(() -> catalog.createNamespace(Namespace.of("a\ud800b"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unpaired surrogate U+D800");
    assertThatThrownBy(() -> catalog.createTable(TableIdentifier.of(NS, "a\udc00b"), SCHEMA))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unpaired surrogate U+DC00");
    assertThatThrownBy(() -> catalog.buildView(TableIdentifier.of(NS, "\ud83d")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> catalog.setProperties(NS, Map.of("k\ud800", "v")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace property key");
    // a real a?b and a well-formed supplementary character are names like any other
    catalog.createNamespace(Namespace.of("a?b"), Map.of());
    catalog.createTable(TableIdentifier.of(NS, "a\ud83d\ude00b"), SCHEMA);
    assertThat(catalog.listTables(NS)).containsExactly(TableIdentifier.of(NS, "a\ud83d\ude00b"));
    assertThat(catalog.listNamespaces()).containsExactlyInAnyOrder(NS, Namespace.of("a?b"));
    assertThat(catalog.loadNamespaceMetadata(NS)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namesDifferingOnlyInTrailingSpacesAreDifferentNames(String backend) throws Exception {
    LetheCatalog catalog = open(backend);
    assertExactNames(catalog);
  }

  @ParameterizedTest
  @ValueSource(strings = {"mariadb"})
  void aDatabaseCreatedBeforeV7ComparesNamesExactlyAfterIt(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    Flyway.configure().dataSource(settings.jdbcUrl(), settings.user(), settings.password())
        .locations("classpath:db/migration/mysql").table("lethe_schema_history")
        .baselineOnMigrate(true).baselineVersion("0").target("6").load().migrate(); // the SQL migrations before V7
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", warehouse().toString(), Map.of());
    assertExactNames(catalogs.catalog("main").orElseThrow());
  }

  private static void assertExactNames(LetheCatalog catalog) {
    Namespace padded = Namespace.of("ns ");
    Namespace plain = Namespace.of("ns");
    catalog.createNamespace(padded, Map.of("which", "padded"));
    catalog.createNamespace(plain, Map.of("which", "plain"));
    assertThat(catalog.loadNamespaceMetadata(padded)).containsEntry("which", "padded");
    assertThat(catalog.loadNamespaceMetadata(plain)).containsEntry("which", "plain");
    Table t1 = catalog.createTable(TableIdentifier.of(plain, "t "), SCHEMA);
    Table t2 = catalog.createTable(TableIdentifier.of(plain, "t"), SCHEMA);
    assertThat(catalog.loadTable(TableIdentifier.of(plain, "t ")).uuid()).isEqualTo(t1.uuid());
    assertThat(catalog.loadTable(TableIdentifier.of(plain, "t")).uuid()).isEqualTo(t2.uuid()).isNotEqualTo(t1.uuid());
    assertThat(catalog.listTables(plain)).containsExactlyInAnyOrder(
        TableIdentifier.of(plain, "t "), TableIdentifier.of(plain, "t"));
    catalog.buildView(TableIdentifier.of(plain, "v ")).withSchema(SCHEMA).withDefaultNamespace(plain)
        .withQuery("spark", "select 1").create();
    catalog.buildView(TableIdentifier.of(plain, "v")).withSchema(SCHEMA).withDefaultNamespace(plain)
        .withQuery("spark", "select 2").create();
    assertThat(catalog.listViews(plain)).hasSize(2);
    assertThat(catalog.dropTable(TableIdentifier.of(plain, "t "), false)).isTrue();
    assertThat(catalog.tableExists(TableIdentifier.of(plain, "t"))).isTrue();
    assertThat(catalog.tableExists(TableIdentifier.of(plain, "t "))).isFalse();
  }

  /** The stored length of a namespace name. */
  private static final class NamespaceNamesLength {
    static int of(Namespace ns) {
      return dev.lethe.catalog.entity.NamespaceNames.encode(ns).length();
    }
  }
}
