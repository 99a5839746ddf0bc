package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Spark's {@code DROP TABLE … PURGE} with soft deletion on (local warehouse): with the README's
 * settings the purge goes to the server, the files stay and undrop brings back every row, or the
 * table is purged at its deadline if left alone; without {@code rest-catalog-purge} Spark deletes
 * the files on the driver and undrop refuses (409) rather than restore a hollow table
 * (docs/design/0301-hollow-restore.md). The purge preview, live and after the drop, is what an admin's
 * purge-now then deletes, file for file ({@link PurgePreviewOracle}). Subclasses choose the catalog
 * database.
 */
abstract class SparkSoftDeleteTestBase {
  /** Long enough for a drop and an undrop on a busy machine, short enough to wait for in a test. */
  static final long RETENTION_MS = 20_000;

  static LetheServer server;
  static SparkSession spark;
  /** Catalog with the README's settings ({@code rest-catalog-purge=true}). */
  static String readme;
  /** The same server without {@code rest-catalog-purge}: Spark purges on the driver. */
  static String plain;

  /** Starts the server (soft deletion on, short retention) and registers both catalogs. */
  static void startServer(String name, String jdbcUrl) throws Exception {
    Map<String, String> config = new HashMap<>();
    config.put("lethe.entity.soft-delete.enabled", "true");
    config.put("lethe.entity.soft-delete.retention-ms", String.valueOf(RETENTION_MS));
    config.put("lethe.entity.soft-delete.expiry-interval-ms", "500");
    config.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "200");
    server = LetheServer.start(name, config, jdbcUrl);
    spark = SparkSessions.get();
    readme = name.replace('-', '_') + "_readme";
    plain = name.replace('-', '_') + "_plain";
    SparkSessions.register(readme, SparkSessions.readme(server));
    Map<String, String> unconfigured = new HashMap<>(SparkSessions.readme(server));
    unconfigured.remove("rest-catalog-purge");
    SparkSessions.register(plain, unconfigured);
    spark.sql("CREATE NAMESPACE " + readme + ".sd");
  }

  static List<String> rows(String catalog, String table) {
    return spark.sql("SELECT * FROM " + catalog + ".sd." + table + " ORDER BY id").collectAsList().stream()
        .map(Row::toString).toList();
  }

  /** A partitioned merge-on-read table with a position delete; returns its location. */
  static Path createTable(String table) throws Exception {
    String t = readme + ".sd." + table;
    spark.sql("CREATE TABLE " + t + " (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)"
        + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')");
    spark.sql("INSERT INTO " + t + " VALUES (1, 'eu'), (2, 'eu'), (3, 'us'), (4, 'us')");
    spark.sql("INSERT INTO " + t + " VALUES (5, 'ap')");
    spark.sql("DELETE FROM " + t + " WHERE id = 2");
    assertThat(rows(readme, table)).containsExactly("[1,eu]", "[3,us]", "[4,us]", "[5,ap]");
    return Path.of(Spark3Util.loadIcebergTable(spark, t).location().replaceFirst("^file:", ""));
  }

  private static List<String> withoutChecksums(List<String> files) {
    return files.stream().filter(f -> !f.endsWith(".crc")).toList();
  }

  @Test
  void dropPurgeWithTheReadmeSettingsKeepsTheFilesAndUndropRestoresEveryRow() throws Exception {
    Path loc = createTable("kept");
    List<String> files = LetheServer.files(loc);

    spark.sql("DROP TABLE " + readme + ".sd.kept PURGE");

    assertThatThrownBy(() -> rows(readme, "kept")).isInstanceOf(AnalysisException.class);
    assertThat(LetheServer.files(loc)).as("a retained table keeps every file").isEqualTo(files);
    JsonNode deleted = server.deleted("sd", "kept");
    assertThat(deleted.get("purgeRequested").asBoolean()).as("Spark sent purgeRequested=true").isTrue();
    assertThat(deleted.get("recoverable").asBoolean()).isTrue();

    HttpResponse<String> undrop = server.undrop("sd", "kept");
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);
    assertThat(rows(readme, "kept")).containsExactly("[1,eu]", "[3,us]", "[4,us]", "[5,ap]");
    assertThat(rows(plain, "kept")).containsExactly("[1,eu]", "[3,us]", "[4,us]", "[5,ap]");
    spark.sql("INSERT INTO " + readme + ".sd.kept VALUES (6, 'eu')");
    assertThat(rows(readme, "kept")).containsExactly("[1,eu]", "[3,us]", "[4,us]", "[5,ap]", "[6,eu]");
  }

  @Test
  void aDropPurgeLeftAloneIsPurgedAtItsDeadline() throws Exception {
    Path loc = createTable("expires");
    spark.sql("DROP TABLE " + readme + ".sd.expires PURGE");
    JsonNode deleted = server.deleted("sd", "expires");
    assertThat(deleted.get("retentionExpiresAt").asLong() - deleted.get("deletedAt").asLong()).isEqualTo(RETENTION_MS);
    assertThat(withoutChecksums(LetheServer.files(loc))).as("kept until the deadline").isNotEmpty();

    Awaitility.await("purged and finalized after the deadline").atMost(Duration.ofSeconds(RETENTION_MS / 1000 + 90))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> server.deleted("sd", "expires") == null);

    assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(deleted.get("retentionExpiresAt").asLong());
    assertThat(LetheServer.files(loc)).as("nothing left, .crc checksums included").isEmpty();
    HttpResponse<String> undrop = server.undrop("sd", "expires");
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(404);
    spark.sql("CREATE TABLE " + readme + ".sd.expires (id BIGINT) USING iceberg");
    assertThat(spark.sql("SELECT * FROM " + readme + ".sd.expires").count()).as("the name is free again").isZero();
  }

  @Test
  void sparkPurgeWithoutTheSettingDeletesOnTheDriverAndUndropRefusesAHollowRestore() throws Exception {
    Path loc = createTable("hollow");

    spark.sql("DROP TABLE " + plain + ".sd.hollow PURGE");

    assertThat(withoutChecksums(LetheServer.files(loc))).as("Spark deleted the files itself").isEmpty();
    JsonNode deleted = server.deleted("sd", "hollow");
    assertThat(deleted.get("purgeRequested").asBoolean()).as("Spark did not tell the catalog").isFalse();
    assertThat(deleted.get("recoverable").asBoolean()).isFalse();
    assertThat(deleted.get("reason").asText()).contains("deleted outside the catalog");

    HttpResponse<String> undrop = server.undrop("sd", "hollow");
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(409);
    assertThat(LetheServer.JSON.readTree(undrop.body()).get("message").asText())
        .contains("deleted outside the catalog").contains("rest-catalog-purge");
    assertThat(server.deleted("sd", "hollow")).as("still retained, nothing changed").isNotNull();
    // Iceberg clients still see no table (the other Spark catalog may hold it in its table cache)
    assertThat(server.send("GET", "/iceberg/v1/main/namespaces/sd/tables/hollow").statusCode()).isEqualTo(404);
    assertThatThrownBy(() -> rows(plain, "hollow")).isInstanceOf(AnalysisException.class);
  }

  @Test
  void previewsLiveAndAfterTheDropAreWhatPurgeNowThenDeletesFileForFile() throws Exception {
    Path loc = PurgePreviewOracle.write(spark, readme, "sd", "previewed");
    JsonNode live = PurgePreviewOracle.preview(server, "sd", "previewed");
    assertThat(live.get("state").asText()).isEqualTo("LIVE");
    spark.sql("DROP TABLE " + readme + ".sd.previewed PURGE");
    Map<String, Long> before = PurgePreviewOracle.listing(loc);

    JsonNode retained = PurgePreviewOracle.preview(server, "sd", "previewed");
    assertThat(retained.get("state").asText()).isEqualTo("DELETED");
    // purge-now (202, the job enqueued); should the deadline's expiry have enqueued it first, also 202
    HttpResponse<String> purge = server.send("POST", "/api/metalakes/default/catalogs/main/schemas/sd/tables/previewed/purge");
    assertThat(purge.statusCode()).as(purge.body()).isEqualTo(202);
    PurgePreviewOracle.awaitJob(server, "previewed");

    Map<String, Long> after = PurgePreviewOracle.listing(loc);
    PurgePreviewOracle.assertPurgeMatches(retained, before, after);
    // the drop writes no file: the live table's preview said the same
    PurgePreviewOracle.assertPurgeMatches(live, before, after);
  }
}
