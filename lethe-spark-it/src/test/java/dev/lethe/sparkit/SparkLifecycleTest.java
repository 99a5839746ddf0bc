package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark 4.1 with Iceberg's Spark runtime against a real {@code lethe server} (H2, soft deletion off),
 * configured exactly as the README says: every statement a Spark user runs on an Iceberg table, each
 * result checked by a SELECT and by listing the warehouse directory.
 */
class SparkLifecycleTest {
  private static final String CATALOG = "lethe_life";
  private static LetheServer server;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    server = LetheServer.start("spark-life", Map.of(), null);
    spark = SparkSessions.get();
    SparkSessions.register(CATALOG, SparkSessions.readme(server));
    sql("CREATE NAMESPACE %s.life");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static List<Row> sql(String statement, Object... args) {
    Object[] all = new Object[args.length + 1];
    all[0] = CATALOG;
    System.arraycopy(args, 0, all, 1, args.length);
    return spark.sql(String.format(statement, all)).collectAsList();
  }

  private static List<String> rows(String table) {
    return sql("SELECT * FROM %s.life." + table + " ORDER BY id").stream().map(Row::toString).toList();
  }

  private static Table table(String name) throws Exception {
    return Spark3Util.loadIcebergTable(spark, CATALOG + ".life." + name);
  }

  private static Path location(Table t) {
    return Path.of(t.location().replaceFirst("^file:", ""));
  }

  private static void createOrders(String name) {
    sql("CREATE TABLE %s.life." + name + " (id BIGINT, region STRING, amount INT) USING iceberg PARTITIONED BY (region)"
        + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')");
    sql("INSERT INTO %s.life." + name + " VALUES (1, 'eu', 10), (2, 'eu', 20), (3, 'us', 30), (4, 'us', 40)");
  }

  @Test
  void insertMergeDeleteUpdateAndAddColumnOnAPartitionedMergeOnReadTable() throws Exception {
    createOrders("orders");
    Path loc = location(table("orders"));
    assertThat(rows("orders")).containsExactly("[1,eu,10]", "[2,eu,20]", "[3,us,30]", "[4,us,40]");
    assertThat(LetheServer.files(loc)).anyMatch(f -> f.startsWith("data/region=eu/") && f.endsWith(".parquet"))
        .anyMatch(f -> f.startsWith("data/region=us/") && f.endsWith(".parquet"))
        .anyMatch(f -> f.startsWith("metadata/") && f.endsWith(".metadata.json"));

    sql("MERGE INTO %s.life.orders t USING (SELECT 2L AS id, 'eu' AS region, 25 AS amount"
        + " UNION ALL SELECT 5L, 'ap', 50) s ON t.id = s.id"
        + " WHEN MATCHED THEN UPDATE SET amount = s.amount WHEN NOT MATCHED THEN INSERT *");
    assertThat(rows("orders")).containsExactly("[1,eu,10]", "[2,eu,25]", "[3,us,30]", "[4,us,40]", "[5,ap,50]");

    sql("DELETE FROM %s.life.orders WHERE id = 3");
    assertThat(rows("orders")).containsExactly("[1,eu,10]", "[2,eu,25]", "[4,us,40]", "[5,ap,50]");
    List<String> deleteFiles = sql("SELECT file_path FROM %s.life.orders.delete_files").stream()
        .map(r -> r.getString(0)).toList();
    assertThat(deleteFiles).as("merge-on-read DELETE writes position-delete files").isNotEmpty();
    for (String f : deleteFiles) {
      assertThat(Path.of(f.replaceFirst("^file:", ""))).exists();
    }

    sql("UPDATE %s.life.orders SET amount = amount + 1 WHERE region = 'us'");
    assertThat(rows("orders")).containsExactly("[1,eu,10]", "[2,eu,25]", "[4,us,41]", "[5,ap,50]");

    sql("ALTER TABLE %s.life.orders ADD COLUMN note STRING");
    sql("INSERT INTO %s.life.orders VALUES (6, 'eu', 60, 'new')");
    assertThat(rows("orders"))
        .containsExactly("[1,eu,10,null]", "[2,eu,25,null]", "[4,us,41,null]", "[5,ap,50,null]", "[6,eu,60,new]");
    assertThat(table("orders").schema().findField("note")).isNotNull();
    assertThat(LetheServer.files(loc)).anyMatch(f -> f.startsWith("data/region=ap/"));
  }

  @Test
  void expireSnapshotsAndRemoveOrphanFilesDeleteOnlyWhatTheyShould() throws Exception {
    createOrders("maint");
    sql("INSERT INTO %s.life.maint VALUES (5, 'eu', 50)");
    sql("DELETE FROM %s.life.maint WHERE id = 1");
    Table before = table("maint");
    Path loc = location(before);
    List<String> oldManifestLists = new java.util.ArrayList<>();
    before.snapshots().forEach(s -> {
      if (s.snapshotId() != before.currentSnapshot().snapshotId()) {
        oldManifestLists.add(s.manifestListLocation());
      }
    });
    assertThat(oldManifestLists).hasSize(2);

    List<Row> expired = sql("CALL %s.system.expire_snapshots(table => 'life.maint', older_than => TIMESTAMP '%s',"
        + " retain_last => 1)", Instant.now().plusSeconds(1).toString().replace('T', ' ').replace("Z", ""));
    assertThat(expired).hasSize(1);
    assertThat(sql("SELECT * FROM %s.life.maint.snapshots")).hasSize(1);
    for (String ml : oldManifestLists) {
      assertThat(Path.of(ml.replaceFirst("^file:", ""))).as("expired manifest list").doesNotExist();
    }
    assertThat(rows("maint")).containsExactly("[2,eu,20]", "[3,us,30]", "[4,us,40]", "[5,eu,50]");

    Path orphan = loc.resolve("data/region=eu/orphan-from-a-failed-write.parquet");
    Files.writeString(orphan, "not referenced by any snapshot");
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minusSeconds(3 * 24 * 3600 + 60)));
    List<Row> removed = sql("CALL %s.system.remove_orphan_files(table => 'life.maint')");
    assertThat(removed.stream().map(r -> r.getString(0))).anyMatch(p -> p.endsWith("orphan-from-a-failed-write.parquet"));
    assertThat(orphan).doesNotExist();
    assertThat(rows("maint")).containsExactly("[2,eu,20]", "[3,us,30]", "[4,us,40]", "[5,eu,50]");
  }

  @Test
  void renameKeepsRowsAndFiles() throws Exception {
    createOrders("before_rename");
    Path loc = location(table("before_rename"));
    List<String> files = LetheServer.files(loc);
    sql("ALTER TABLE %s.life.before_rename RENAME TO life.after_rename");
    assertThat(rows("after_rename")).containsExactly("[1,eu,10]", "[2,eu,20]", "[3,us,30]", "[4,us,40]");
    assertThatThrownBy(() -> rows("before_rename")).isInstanceOf(AnalysisException.class);
    assertThat(location(table("after_rename"))).isEqualTo(loc);
    assertThat(LetheServer.files(loc)).containsAll(files);
  }

  @Test
  void dropTableRemovesTheEntryAndKeepsEveryFile() throws Exception {
    createOrders("dropped");
    Path loc = location(table("dropped"));
    List<String> files = LetheServer.files(loc);
    sql("DROP TABLE %s.life.dropped");
    assertThat(sql("SHOW TABLES IN %s.life").stream().map(r -> r.getString(1))).doesNotContain("dropped");
    assertThatThrownBy(() -> rows("dropped")).isInstanceOf(AnalysisException.class);
    assertThat(LetheServer.files(loc)).isEqualTo(files);
  }

  /**
   * The README's Java example: iceberg-java's RESTCatalog with its default FileIO (no io-impl:
   * ResolvingFileIO, which reads and writes local paths through Hadoop's file system and its .crc
   * checksums) on tables Spark wrote; drop keeps the files, purge deletes what the metadata names.
   */
  @Test
  void icebergJavaRestCatalogWithItsDefaultFileIOWorksAsTheReadmeShows() throws Exception {
    org.apache.iceberg.rest.RESTCatalog catalog = new org.apache.iceberg.rest.RESTCatalog();
    catalog.initialize("lethe", Map.of("uri", server.icebergUri(), "warehouse", "main"));
    try {
      org.apache.iceberg.catalog.Namespace ns = org.apache.iceberg.catalog.Namespace.of("java");
      catalog.createNamespace(ns);
      org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
          org.apache.iceberg.types.Types.NestedField.required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
          org.apache.iceberg.types.Types.NestedField.optional(2, "region", org.apache.iceberg.types.Types.StringType.get()));
      for (String name : List.of("orders", "items")) {
        catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of(ns, name), schema);
        sql("INSERT INTO %s.java." + name + " VALUES (1, 'eu'), (2, 'us')");
      }
      Table orders = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(ns, "orders"));
      assertThat(orders.io().getClass().getSimpleName()).isEqualTo("ResolvingFileIO");
      assertThat(orders.currentSnapshot().summary()).containsEntry("total-records", "2");
      Path ordersLoc = location(orders);
      Path itemsLoc = location(catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(ns, "items")));
      List<String> ordersFiles = LetheServer.files(ordersLoc);
      List<String> itemsFiles = LetheServer.files(itemsLoc);
      assertThat(itemsFiles).anyMatch(f -> f.endsWith(".parquet")).anyMatch(f -> f.endsWith(".crc"));

      assertThat(catalog.dropTable(org.apache.iceberg.catalog.TableIdentifier.of(ns, "orders"), false)).isTrue();
      assertThat(catalog.dropTable(org.apache.iceberg.catalog.TableIdentifier.of(ns, "items"), true)).isTrue();

      assertThat(catalog.listTables(ns)).isEmpty();
      assertThat(LetheServer.files(ordersLoc)).as("drop: entry only").isEqualTo(ordersFiles);
      assertThat(LetheServer.files(itemsLoc)).as("purge: nothing left, Hadoop's .crc checksums included").isEmpty();
      assertThat(itemsLoc).as("purge: the table location itself is removed").doesNotExist();
    } finally {
      catalog.close();
    }
  }

  @Test
  void dropTablePurgeLeavesNothingUnderTheTableLocation() throws Exception {
    createOrders("purged");
    sql("DELETE FROM %s.life.purged WHERE id = 2");
    sql("CALL %s.system.compute_table_stats(table => 'life.purged')");
    Table t = table("purged");
    Path loc = location(t);
    assertThat(t.statisticsFiles()).as("statistics written").isNotEmpty();
    assertThat(sql("SELECT * FROM %s.life.purged.delete_files")).isNotEmpty();
    List<String> files = LetheServer.files(loc);
    assertThat(files).anyMatch(f -> f.endsWith(".stats")).anyMatch(f -> f.endsWith(".parquet"));

    sql("DROP TABLE %s.life.purged PURGE");

    assertThat(sql("SHOW TABLES IN %s.life").stream().map(r -> r.getString(1))).doesNotContain("purged");
    assertThatThrownBy(() -> rows("purged")).isInstanceOf(AnalysisException.class);
    // every data, delete, manifest, manifest-list, statistics and metadata file is gone, and so are
    // the hidden checksum files (.name.crc) Hadoop's local file system wrote beside them, which no
    // metadata names: the purge sweeps the table location (docs/design/0003-purge-sweep-and-kept-files.md)
    assertThat(files).as("checksum files before the purge").anyMatch(f -> f.endsWith(".crc"));
    assertThat(LetheServer.files(loc)).as("files left under " + loc).isEmpty();
    assertThat(loc).as("the table location itself is removed").doesNotExist();
  }
}
