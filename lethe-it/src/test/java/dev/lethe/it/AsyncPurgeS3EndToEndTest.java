package dev.lethe.it;

import static dev.lethe.it.AsyncPurgeHttp.cleanups;
import static dev.lethe.it.AsyncPurgeHttp.drop;
import static dev.lethe.it.AsyncPurgeHttp.state;
import static org.assertj.core.api.Assertions.assertThat;

import com.adobe.testing.s3mock.S3MockApplication;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The asynchronous purge end to end on S3: an embedded S3-compatible server (s3mock), a real server
 * process whose catalog {@code main} has an {@code s3://} warehouse configured through {@code
 * lethe.catalog.*} keys, iceberg-java's RESTCatalog writing real Parquet data and a position delete
 * through S3FileIO, a raw HTTP drop with the async header, and the bucket listed after the worker
 * purged the table through S3FileIO's bulk {@code DeleteObjects} path.
 */
class AsyncPurgeS3EndToEndTest {
  private static final String BUCKET = "lethe-it";
  private static final Namespace NS = Namespace.of("s3ap");
  private static final PartitionSpec BY_CATEGORY = PartitionSpec.builderFor(PurgeTables.SCHEMA).identity("category").build();
  private static S3MockApplication s3mock;
  private static S3Client s3;
  private static PurgeServer server;
  private static RESTCatalog catalog;

  @BeforeAll
  static void start() throws Exception {
    // hadoop-client-runtime registers its shaded Woodstox as the StAX service; s3mock needs the real one
    for (String api : new String[] {"XMLInputFactory", "XMLOutputFactory", "XMLEventFactory"}) {
      System.setProperty("javax.xml.stream." + api, "com.ctc.wstx.stax.Wstx" + api.substring(3));
    }
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dataDir = Files.createTempDirectory(work, "async-purge-s3-");
    Map<String, Object> mockProps = new HashMap<>();
    mockProps.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
    mockProps.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
    mockProps.put(S3MockApplication.PROP_SILENT, true);
    mockProps.put("com.adobe.testing.s3mock.store.root", dataDir.resolve("s3").toString());
    s3mock = S3MockApplication.start(mockProps);
    String endpoint = "http://127.0.0.1:" + s3mock.getHttpPort();
    s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret"))).build();
    s3.createBucket(b -> b.bucket(BUCKET));
    Map<String, String> io = Map.of("s3.endpoint", endpoint, "s3.path-style-access", "true", "s3.access-key-id", "key",
        "s3.secret-access-key", "secret", "client.region", "us-east-1");

    Map<String, String> config = new HashMap<>();
    config.put("lethe.catalog.warehouse", "s3://" + BUCKET + "/wh");
    io.forEach((k, v) -> config.put("lethe.catalog.properties." + k, v));
    config.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "100");
    server = PurgeServer.start(dataDir, AsyncPurgeHttp.configArgs(dataDir, config));

    Map<String, String> client = new HashMap<>(io);
    client.put("uri", server.icebergUri());
    client.put("warehouse", "main");
    client.put("io-impl", S3FileIO.class.getName());
    catalog = new RESTCatalog();
    catalog.initialize("lethe-s3", client);
    catalog.createNamespace(NS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (catalog != null) {
      catalog.close();
    }
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

  /** The keys under a table location, with the trailing slash so {@code …/t} does not match {@code …/t2}. */
  private static List<String> keys(Table table) {
    String location = table.location();
    assertThat(location).startsWith("s3://" + BUCKET + "/wh/");
    String prefix = location.substring(("s3://" + BUCKET + "/").length()) + "/";
    return s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET).prefix(prefix).build())
        .contents().stream().map(S3Object::key).sorted().toList();
  }

  private static Table create(String name) {
    return catalog.buildTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA).withPartitionSpec(BY_CATEGORY)
        .withProperties(Map.of(TableProperties.FORMAT_VERSION, "2", TableProperties.DELETE_MODE, "merge-on-read",
            TableProperties.UPDATE_MODE, "merge-on-read"))
        .create();
  }

  @Test
  void asyncDropOfAnS3TableEmptiesItsPrefixThroughTheWorkerAndLeavesTheSiblingTableAlone() throws Exception {
    Table table = create("t");
    PurgeTables.enrich(table);
    table.refresh();
    assertThat(table.io()).isInstanceOf(S3FileIO.class);
    assertThat(table.currentSnapshot().summary()).containsEntry("total-position-deletes", "1");
    Table sibling = create("t2");
    PurgeTables.append(sibling, 0, 3, "a");
    PurgeTables.append(sibling, 10, 3, "b");
    List<String> siblingKeys = keys(sibling);
    List<String> tableKeys = keys(table);
    assertThat(tableKeys).hasSizeGreaterThan(10)
        .anySatisfy(k -> assertThat(k).endsWith(".parquet")).anySatisfy(k -> assertThat(k).endsWith(".metadata.json"));
    assertThat(siblingKeys).anySatisfy(k -> assertThat(k).endsWith(".parquet"));

    assertThat(drop(server.base(), "main", "s3ap", "t", true).statusCode()).isEqualTo(204);

    assertThat(cleanups(server.base(), "main", "")).hasSize(1);
    AsyncPurgeHttp.await("job of t to succeed", Duration.ofSeconds(120),
        () -> "SUCCEEDED".equals(state(server.base(), "main", "t")));
    assertThat(keys(table)).isEmpty();
    assertThat(keys(sibling)).isEqualTo(siblingKeys);
    assertThat(catalog.tableExists(TableIdentifier.of(NS, "t2"))).isTrue();
  }
}
