package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.adobe.testing.s3mock.S3MockApplication;
import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The asynchronous purge against a real S3-compatible server (s3mock): a merge-on-read table with
 * Parquet data, a position delete and statistics on S3, dropped and enqueued, then purged by the
 * worker pool through S3FileIO's bulk {@code DeleteObjects} path until its prefix is empty.
 */
class AsyncPurgeS3Test {
  private static final String BUCKET = "lethe-async";

  @TempDir static Path tmp;
  private static S3MockApplication s3mock;
  private static S3Client s3;
  private static Map<String, String> ioProps;

  @BeforeAll
  static void startS3() {
    // hadoop-client-runtime registers its shaded Woodstox as the StAX service; s3mock needs the real one
    for (String api : new String[] {"XMLInputFactory", "XMLOutputFactory", "XMLEventFactory"}) {
      System.setProperty("javax.xml.stream." + api, "com.ctc.wstx.stax.Wstx" + api.substring(3));
    }
    Map<String, Object> props = new HashMap<>();
    props.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
    props.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
    props.put(S3MockApplication.PROP_SILENT, true);
    props.put("com.adobe.testing.s3mock.store.root", tmp.resolve("s3").toString());
    s3mock = S3MockApplication.start(props);
    String endpoint = "http://127.0.0.1:" + s3mock.getHttpPort();
    s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret"))).build();
    s3.createBucket(b -> b.bucket(BUCKET));
    ioProps = Map.of("s3.endpoint", endpoint, "s3.path-style-access", "true", "s3.access-key-id", "key",
        "s3.secret-access-key", "secret", "client.region", "us-east-1");
  }

  @AfterAll
  static void stopS3() {
    if (s3 != null) {
      s3.close();
    }
    if (s3mock != null) {
      s3mock.stop();
    }
  }

  private static List<String> keys(String prefix) {
    return s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET).prefix(prefix).build())
        .contents().stream().map(S3Object::key).toList();
  }

  @Test
  void workerPurgesAMergeOnReadTableOnS3UntilItsPrefixIsEmpty() throws Exception {
    DatabaseSettings settings = new DatabaseSettings("jdbc:h2:file:" + tmp.resolve("catalog").toAbsolutePath(), null, null, 4);
    AtomicLong deletedCounter = new AtomicLong();
    try (CatalogDatabase db = CatalogDatabase.open(settings);
        IcebergCatalogs catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString())) {
      catalogs.ensureCatalog("s3", "s3://" + BUCKET + "/wh", ioProps);
      LetheCatalog catalog = catalogs.catalog("s3").orElseThrow();
      catalog.createNamespace(ParquetTables.NS, Map.of());
      Table table = ParquetTables.createRichTable(catalog, "t",
          Map.of(TableProperties.DELETE_MODE, "merge-on-read", TableProperties.UPDATE_MODE, "merge-on-read"));
      assertThat(table.io()).isInstanceOf(S3FileIO.class);
      String prefix = table.location().substring(("s3://" + BUCKET + "/").length()) + "/";
      int objects = keys(prefix).size();
      assertThat(objects).isGreaterThan(10);
      assertThat(keys(prefix)).anySatisfy(k -> assertThat(k).endsWith(".parquet")).anySatisfy(k -> assertThat(k).endsWith(".puffin"));

      CredentialCipher cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
      CleanupJob job = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory())
          .dropTable(catalog.row(), TableIdentifier.of(ParquetTables.NS, "t"), "alice");
      assertThat(job.fileIoImpl()).isEqualTo(FileIOFactory.S3_FILE_IO_IMPL);
      AsyncPurgeSettings s = new AsyncPurgeSettings(1, 2, 1000, 20, 10_000, 3, 720);
      try (DeletePool deletes = new DeletePool(2, 2);
          PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db),
              new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, s.deleteBatchSize(), deletedCounter::addAndGet),
              e -> {}, null)) {
        await("job to succeed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
            .until(() -> db.jdbi().withHandle(h -> new CleanupJobDao(h).find(job.jobId())).orElseThrow().state() == CleanupJobState.SUCCEEDED);
      }
      assertThat(keys(prefix)).isEmpty();
      assertThat(deletedCounter.get()).isEqualTo(objects);
    }
  }
}
