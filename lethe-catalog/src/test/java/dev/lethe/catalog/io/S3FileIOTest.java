package dev.lethe.catalog.io;

import static org.assertj.core.api.Assertions.assertThat;

import com.adobe.testing.s3mock.S3MockApplication;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.purge.PlanDeleter;
import dev.lethe.catalog.purge.PurgeResult;
import dev.lethe.catalog.purge.RecordingFileIO;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.jdbc.JdbcCatalog;
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

/** S3FileIO built by {@link FileIOFactory} against a real S3-compatible server (s3mock). */
class S3FileIOTest {
  private static final String BUCKET = "lethe-test";

  @TempDir static Path storeRoot;
  private static S3MockApplication s3mock;
  private static S3Client s3;
  private static Map<String, String> ioProps;

  @BeforeAll
  static void startS3() {
    // hadoop-client-runtime (needed by the Parquet writers) registers its shaded, older Woodstox as
    // the StAX service; s3mock's Jackson XML needs the real one, so name it before the lookup
    for (String api : new String[] {"XMLInputFactory", "XMLOutputFactory", "XMLEventFactory"}) {
      String impl = "com.ctc.wstx.stax.Wstx" + api.substring(3);
      System.setProperty("javax.xml.stream." + api, impl);
    }
    Map<String, Object> props = new HashMap<>();
    props.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
    props.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
    props.put(S3MockApplication.PROP_SILENT, true);
    props.put("com.adobe.testing.s3mock.store.root", storeRoot.toString());
    s3mock = S3MockApplication.start(props);
    String endpoint = "http://127.0.0.1:" + s3mock.getHttpPort();
    s3 =
        S3Client.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret")))
            .build();
    s3.createBucket(b -> b.bucket(BUCKET));
    ioProps =
        Map.of(
            "s3.endpoint", endpoint,
            "s3.path-style-access", "true",
            "s3.access-key-id", "key",
            "s3.secret-access-key", "secret",
            "client.region", "us-east-1");
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

  private static String write(FileIO io, String location, String content) throws IOException {
    try (OutputStream out = io.newOutputFile(location).create()) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
    return location;
  }

  private static Set<String> keys(String prefix) {
    Set<String> keys = new HashSet<>();
    s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET).prefix(prefix).build())
        .contents()
        .stream()
        .map(S3Object::key)
        .forEach(keys::add);
    return keys;
  }

  private static Set<String> listed(FileIO io, String prefix) {
    Set<String> locations = new HashSet<>();
    for (FileInfo info : ((SupportsPrefixOperations) io).listPrefix(prefix)) {
      locations.add(info.location());
    }
    return locations;
  }

  @Test
  void s3FileIOWritesReadsBulkDeletesAndListsByPrefix() throws IOException {
    try (FileIO io = new FileIOFactory().create("s3://" + BUCKET + "/wh", ioProps)) {
      assertThat(io).isInstanceOf(S3FileIO.class).isInstanceOf(SupportsBulkOperations.class);
      String base = "s3://" + BUCKET + "/io/";
      write(io, base + "one.txt", "hello");
      try (InputStream in = io.newInputFile(base + "one.txt").newStream()) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
      }
      assertThat(io.newInputFile(base + "one.txt").getLength()).isEqualTo(5);

      List<String> batch = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        batch.add(write(io, base + "a/f" + i, "x" + i));
      }
      write(io, base + "ab/keep", "k");
      assertThat(listed(io, base + "a/")).containsExactlyInAnyOrderElementsOf(batch);

      // includes a key that never existed: S3 treats it as deleted
      batch.add(base + "a/never-written");
      ((SupportsBulkOperations) io).deleteFiles(batch);

      assertThat(keys("io/a/")).isEmpty();
      assertThat(keys("io/")).containsExactlyInAnyOrder("io/one.txt", "io/ab/keep");
      assertThat(io.newInputFile(base + "a/f0").exists()).isFalse();
    }
  }

  @Test
  void purgeOfATableOnS3DeletesWhatIcebergDeletesAndLeavesTheSiblingTable() throws IOException {
    String warehouse = "s3://" + BUCKET + "/purge-wh";
    try (JdbcCatalog catalog = ParquetTables.catalog(warehouse, FileIOFactory.S3_FILE_IO_IMPL, ioProps);
        FileIO io = new FileIOFactory().create(warehouse, ioProps)) {
      Table t = ParquetTables.createRichTable(catalog, "t", Map.of());
      Table t2 = ParquetTables.createRichTable(catalog, "t2", Map.of());
      assertThat(ParquetTables.rows(t)).hasSize(14);
      Set<String> siblingBefore = keys("purge-wh/db/t2/");
      assertThat(keys("purge-wh/db/t/")).hasSizeGreaterThan(15);
      TableMetadata metadata = ParquetTables.metadata(t);

      RecordingFileIO iceberg = new RecordingFileIO(io, false);
      CatalogUtil.dropTableData(iceberg, metadata);
      PurgeResult result = new PlanDeleter().purge(io, metadata);

      assertThat(result.complete()).isTrue();
      assertThat(result.totalDeleted()).isEqualTo(new HashSet<>(iceberg.deleted()).size());
      assertThat(result.deleted(PurgePhase.DATA_AND_DELETE_FILES)).isEqualTo(7);
      assertThat(keys("purge-wh/db/t/")).isEmpty();
      assertThat(keys("purge-wh/db/t2/")).isEqualTo(siblingBefore);
      assertThat(ParquetTables.rows(t2)).hasSize(14);
    }
  }
}
