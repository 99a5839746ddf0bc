package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client artifact {@code lethe-fileio} on a client's classpath, as docs/fileio.md tells a user
 * to put it there (docs/design/0435-lethe-fileio-client-artifact.md): this module's classpath holds
 * Spark, iceberg-spark-runtime and that one jar of Lethe's, nothing of lethe-catalog. Spark and
 * iceberg-java's {@code RESTCatalog} configured with {@code io-impl=dev.lethe.catalog.io.LocalFileIO}
 * write, read and drop tables of a real {@code lethe server}'s local warehouse through it.
 */
class SparkLocalFileIOTest {
  private static final String CATALOG = "lethe_localio";
  private static final String LOCAL_FILE_IO = "dev.lethe.catalog.io.LocalFileIO";
  private static LetheServer server;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    server = LetheServer.start("spark-localio", Map.of(), null);
    spark = SparkSessions.get();
    Map<String, String> properties = new HashMap<>(SparkSessions.readme(server));
    properties.put("io-impl", LOCAL_FILE_IO);
    SparkSessions.register(CATALOG, properties);
    sql("CREATE NAMESPACE %s.lio");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static List<Row> sql(String statement) {
    return spark.sql(String.format(statement, CATALOG)).collectAsList();
  }

  private static Path location(Table t) {
    return Path.of(t.location().replaceFirst("^file:", ""));
  }

  @Test
  void theClientClasspathHoldsLocalFileIOFromLetheFileioAndNoOtherLetheClass() throws Exception {
    Class<?> io = Class.forName(LOCAL_FILE_IO);
    assertThat(io.getProtectionDomain().getCodeSource().getLocation().getPath())
        .as("where LocalFileIO is loaded from").containsPattern("lethe-fileio/target/(classes|lethe-fileio-[^/]+\\.jar)");
    assertThatThrownBy(() -> Class.forName("dev.lethe.catalog.io.FileIOFactory"))
        .as("lethe-catalog is not on the client's classpath").isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void sparkWritesUpdatesReadsAndPurgesATableThroughLocalFileIO() throws Exception {
    sql("CREATE TABLE %s.lio.orders (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)");
    sql("INSERT INTO %s.lio.orders VALUES (1, 'eu'), (2, 'us'), (3, 'us')");
    sql("UPDATE %s.lio.orders SET region = 'eu' WHERE id = 3");
    assertThat(sql("SELECT * FROM %s.lio.orders ORDER BY id").stream().map(Row::toString))
        .containsExactly("[1,eu]", "[2,us]", "[3,eu]");

    Table orders = Spark3Util.loadIcebergTable(spark, CATALOG + ".lio.orders");
    assertThat(orders.io().getClass().getName()).isEqualTo(LOCAL_FILE_IO);
    Path loc = location(orders);
    // Hadoop's local file system writes a .name.crc beside each file; LocalFileIO writes none
    assertThat(LetheServer.files(loc)).anyMatch(f -> f.startsWith("data/region=eu/") && f.endsWith(".parquet"))
        .anyMatch(f -> f.endsWith(".metadata.json"))
        .noneMatch(f -> f.endsWith(".crc"));

    sql("DROP TABLE %s.lio.orders PURGE");
    assertThat(LetheServer.files(loc)).as("files left under " + loc).isEmpty();
  }

  /** The README's Java example, io-impl included, on a table Spark writes into. */
  @Test
  void icebergJavaRestCatalogWithLocalFileIOWorksAsTheReadmeShows() throws Exception {
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("lethe", Map.of("uri", server.icebergUri(), "warehouse", "main", "io-impl", LOCAL_FILE_IO));
      Namespace ns = Namespace.of("lio_java");
      catalog.createNamespace(ns);
      TableIdentifier id = TableIdentifier.of(ns, "items");
      catalog.createTable(id, new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get())));
      sql("INSERT INTO %s.lio_java.items VALUES (1, 'eu'), (2, 'us')");

      Table items = catalog.loadTable(id);
      assertThat(items.io().getClass().getName()).isEqualTo(LOCAL_FILE_IO);
      assertThat(items.currentSnapshot().summary()).containsEntry("total-records", "2");
      assertThat(items.io().newInputFile(items.currentSnapshot().manifestListLocation()).exists()).isTrue();
      Path loc = location(items);
      assertThat(LetheServer.files(loc)).anyMatch(f -> f.endsWith(".parquet"));

      assertThat(catalog.dropTable(id, true)).isTrue();
      assertThat(LetheServer.files(loc)).as("purge: nothing left").isEmpty();
    }
  }
}
