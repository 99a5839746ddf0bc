package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.adobe.testing.s3mock.S3MockApplication;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3 warehouse (S3Mock) with soft deletion on, and a Spark session configured with {@code
 * S3FileIO} but <b>without</b> {@code rest-catalog-purge}: Spark's driver-side {@code DROP TABLE …
 * PURGE} deletes nothing, because the server tells every client {@code s3.delete-enabled=false}
 * (docs/design/0302-client-fileio-overrides.md), and undrop restores every row. The server's own
 * purge still deletes with the catalog's settings.
 */
class SparkS3SoftDeleteTest {
  private static final String BUCKET = "lake";
  private static final String CATALOG = "lethe_s3";
  private static S3MockApplication s3mock;
  private static S3Client s3;
  private static LetheServer server;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    // hadoop-client-runtime registers its shaded Woodstox as the StAX service; S3Mock needs the real one
    for (String api : new String[] {"XMLInputFactory", "XMLOutputFactory", "XMLEventFactory"}) {
      System.setProperty("javax.xml.stream." + api, "com.ctc.wstx.stax.Wstx" + api.substring(3));
    }
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path s3dir = Files.createTempDirectory(work, "s3mock-");
    Map<String, Object> mockProps = new HashMap<>();
    mockProps.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
    mockProps.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
    mockProps.put(S3MockApplication.PROP_SILENT, true);
    mockProps.put("com.adobe.testing.s3mock.store.root", s3dir.toString());
    s3mock = S3MockApplication.start(mockProps);
    String endpoint = "http://127.0.0.1:" + s3mock.getHttpPort();
    s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret"))).build();
    s3.createBucket(b -> b.bucket(BUCKET));

    Map<String, String> io = Map.of("s3.endpoint", endpoint, "s3.path-style-access", "true",
        "s3.access-key-id", "key", "s3.secret-access-key", "secret", "client.region", "us-east-1");
    Map<String, String> config = new HashMap<>();
    config.put("lethe.catalog.warehouse", "s3://" + BUCKET + "/wh");
    io.forEach((k, v) -> config.put("lethe.catalog.properties." + k, v));
    config.put("lethe.entity.soft-delete.enabled", "true");
    config.put("lethe.entity.soft-delete.expiry-interval-ms", "500");
    config.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "200");
    server = LetheServer.start("spark-s3", config, null);

    spark = SparkSessions.get();
    Map<String, String> catalog = new HashMap<>(io);
    catalog.put("type", "rest");
    catalog.put("uri", server.icebergUri());
    catalog.put("warehouse", "main");
    catalog.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    SparkSessions.register(CATALOG, catalog); // no rest-catalog-purge: Spark purges on the driver
    spark.sql("CREATE NAMESPACE " + CATALOG + ".s3sd");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (s3mock != null) {
      s3mock.stop();
    }
  }

  private static List<String> objects(String prefix) {
    return s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
        .map(S3Object::key).sorted().toList();
  }

  private static List<String> rows(String table) {
    return spark.sql("SELECT * FROM " + CATALOG + ".s3sd." + table + " ORDER BY id").collectAsList().stream()
        .map(Row::toString).toList();
  }

  private static String createTable(String table) throws Exception {
    String t = CATALOG + ".s3sd." + table;
    spark.sql("CREATE TABLE " + t + " (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)"
        + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')");
    spark.sql("INSERT INTO " + t + " VALUES (1, 'eu'), (2, 'eu'), (3, 'us')");
    spark.sql("DELETE FROM " + t + " WHERE id = 2");
    assertThat(rows(table)).containsExactly("[1,eu]", "[3,us]");
    String location = Spark3Util.loadIcebergTable(spark, t).location();
    assertThat(location).startsWith("s3://" + BUCKET + "/");
    return location.substring(("s3://" + BUCKET + "/").length()) + "/";
  }

  @Test
  void theServerTellsClientsThatS3DeletesAreDisabled() throws Exception {
    assertThat(server.icebergConfig().get("overrides").get("s3.delete-enabled").asText()).isEqualTo("false");
  }

  @Test
  void sparkPurgeWithoutTheSettingDeletesNothingAndUndropRestoresEveryRow() throws Exception {
    String prefix = createTable("kept");
    List<String> before = objects(prefix);
    assertThat(before).anyMatch(k -> k.endsWith("-deletes.parquet")).anyMatch(k -> k.endsWith(".metadata.json"));

    spark.sql("DROP TABLE " + CATALOG + ".s3sd.kept PURGE");

    assertThatThrownBy(() -> rows("kept")).isInstanceOf(AnalysisException.class);
    assertThat(objects(prefix)).as("the driver's deletes were no-ops").isEqualTo(before);
    assertThat(server.deleted("s3sd", "kept").get("recoverable").asBoolean()).isTrue();
    HttpResponse<String> undrop = server.undrop("s3sd", "kept");
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);
    assertThat(rows("kept")).containsExactly("[1,eu]", "[3,us]");
  }

  @Test
  void theServersOwnPurgeStillDeletesFromS3() throws Exception {
    String prefix = createTable("purged");
    spark.sql("DROP TABLE " + CATALOG + ".s3sd.purged PURGE");
    assertThat(objects(prefix)).isNotEmpty();

    // Spark sent purgeRequested=false (no rest-catalog-purge), so the record keeps the files at its
    // deadline; the admin's purge-now of a purgeRequested=true drop is what deletes: drop again that way
    assertThat(server.undrop("s3sd", "purged").statusCode()).isEqualTo(200);
    assertThat(server.send("DELETE", "/iceberg/v1/main/namespaces/s3sd/tables/purged?purgeRequested=true").statusCode())
        .isEqualTo(204);
    HttpResponse<String> purge = server.send("POST", "/api/metalakes/default/catalogs/main/schemas/s3sd/tables/purged/purge");
    assertThat(purge.statusCode()).as(purge.body()).isEqualTo(202);

    Awaitility.await("the server's purge deleted the table's objects").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300)).until(() -> objects(prefix).isEmpty());
  }
}
