package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A catalog with {@code async-purge.default=true} (soft deletion off): Spark's {@code DROP TABLE …
 * PURGE} with the README's settings answers once the entry is gone and a cleanup job is queued; a
 * worker deletes the files afterwards (docs/purge.md). The purge preview of the live table is what
 * that job then deletes, file for file ({@link PurgePreviewOracle}).
 */
class SparkAsyncPurgeTest {
  private static final String CATALOG = "lethe_async";
  private static LetheServer server;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    server = LetheServer.start("spark-async", Map.of(
        "lethe.catalog.properties.async-purge.default", "true",
        "lethe.iceberg-rest.async-purge.poll-interval-ms", "200"), null);
    spark = SparkSessions.get();
    SparkSessions.register(CATALOG, SparkSessions.readme(server));
    spark.sql("CREATE NAMESPACE " + CATALOG + ".ap");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void dropPurgeQueuesACleanupJobAndAWorkerDeletesTheFilesLater() throws Exception {
    String t = CATALOG + ".ap.orders";
    spark.sql("CREATE TABLE " + t + " (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)"
        + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')");
    spark.sql("INSERT INTO " + t + " VALUES (1, 'eu'), (2, 'eu'), (3, 'us')");
    spark.sql("DELETE FROM " + t + " WHERE id = 1");
    Path loc = Path.of(Spark3Util.loadIcebergTable(spark, t).location().replaceFirst("^file:", ""));
    assertThat(LetheServer.files(loc)).anyMatch(f -> f.endsWith("-deletes.parquet"));

    long started = System.nanoTime();
    spark.sql("DROP TABLE " + t + " PURGE");
    long dropMillis = (System.nanoTime() - started) / 1_000_000;

    // the drop answered with the job queued: a synchronous purge creates no job
    JsonNode jobs = server.cleanups("orders");
    assertThat(jobs).as("one cleanup job for the table").hasSize(1);
    assertThat(jobs.get(0).get("objectType").asText()).isEqualTo("TABLE");
    assertThat(jobs.get(0).get("namespace").toString()).isEqualTo("[\"ap\"]");
    assertThatThrownBy(() -> spark.sql("SELECT * FROM " + t).collectAsList()).isInstanceOf(AnalysisException.class);

    Awaitility.await("the worker deleted the files").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> "SUCCEEDED".equals(server.cleanups("orders").get(0).get("state").asText()));
    assertThat(LetheServer.files(loc)).as("nothing left, .crc checksums included").isEmpty();
    System.out.printf("SparkAsyncPurgeTest: DROP TABLE ... PURGE returned in %d ms%n", dropMillis);
  }

  @Test
  void aPreviewOfTheLiveTableIsWhatDropPurgeThenDeletesFileForFile() throws Exception {
    Path loc = PurgePreviewOracle.write(spark, CATALOG, "ap", "previewed");
    Map<String, Long> before = PurgePreviewOracle.listing(loc);

    JsonNode preview = PurgePreviewOracle.preview(server, "ap", "previewed");
    assertThat(preview.get("state").asText()).isEqualTo("LIVE");
    assertThat(PurgePreviewOracle.listing(loc)).as("a preview deletes nothing").isEqualTo(before);

    spark.sql("DROP TABLE " + CATALOG + ".ap.previewed PURGE");
    PurgePreviewOracle.awaitJob(server, "previewed");

    PurgePreviewOracle.assertPurgeMatches(preview, before, PurgePreviewOracle.listing(loc));
  }
}
