package dev.lethe.server.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 9 rules 1 (purge side), 4 and 5 (the corrupt-metadata part) over real HTTP on a real server:
 * tables written by iceberg-java's RESTCatalog with its <b>default</b> FileIO (Hadoop's local file
 * system, which writes a {@code .name.crc} beside every file) and Iceberg's Parquet writers, purged
 * synchronously and asynchronously.
 */
class PurgeSweepAndKeptFilesRoutesTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "category", Types.StringType.get()));
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("category").build();
  private static final Namespace NS = Namespace.of("db");

  @TempDir Path dir;
  private LetheServer server;
  private RESTCatalog client;
  private int taskId;

  @BeforeEach
  void start() throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1");
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    props.put(ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    client = new RESTCatalog();
    // no io-impl: the client's default FileIO, as a Spark or Trino user would have it
    client.initialize("lethe", Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg", "warehouse", "main"));
    client.createNamespace(NS);
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  // ---- rule 4: nothing left ----

  @Test
  void syncPurgeOfATableWrittenWithTheDefaultHadoopFileIOLeavesNothingUnderItsLocation() throws Exception {
    Table table = hadoopWrittenTable("t");
    Table sibling = hadoopWrittenTable("t2");
    Set<Path> siblingFiles = files(sibling.location());

    assertThat(client.dropTable(id("t"), true)).isTrue();

    assertThat(files(table.location())).isEmpty();
    assertThat(path(table.location())).doesNotExist();
    assertThat(path(table.location()).getParent()).isDirectory(); // never above the table location
    assertThat(files(sibling.location())).isEqualTo(siblingFiles);
  }

  @Test
  void asyncPurgeOfATableWrittenWithTheDefaultHadoopFileIOLeavesNothingUnderItsLocation() throws Exception {
    Table table = hadoopWrittenTable("t");
    Table sibling = hadoopWrittenTable("t2");
    Set<Path> siblingFiles = files(sibling.location());

    JsonNode job = dropAsyncAndAwaitEnd("t");

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    assertThat(job.get("keptFiles").asLong()).isZero();
    assertThat(path(table.location())).doesNotExist();
    assertThat(files(sibling.location())).isEqualTo(siblingFiles);
  }

  @Test
  void strayAndFailedCommitFilesUnderTheLocationAreSwept() throws Exception {
    Table table = hadoopWrittenTable("t");
    Path location = path(table.location());
    Files.writeString(Files.createDirectories(location.resolve("data/category=zz")).resolve("junk.bin"), "junk");
    Files.writeString(location.resolve("metadata/00042-" + UUID.randomUUID() + ".metadata.json"), "{\"failed\":1}");
    Files.writeString(location.resolve("metadata/snap-9-1-" + UUID.randomUUID() + ".avro"), "not committed");
    Files.writeString(location.resolve(".hidden"), "x");

    JsonNode job = dropAsyncAndAwaitEnd("t");

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    assertThat(location).doesNotExist();
  }

  @Test
  void aManifestThatIsMissingFailsTheAsyncPurgeNamingItAndKeepsTheMetadata() throws Exception {
    Table table = hadoopWrittenTable("t");
    String metadata = ((BaseTable) table).operations().current().metadataFileLocation();
    ManifestFile manifest = table.currentSnapshot().allManifests(table.io()).get(0);
    Files.delete(path(manifest.path()));

    JsonNode job = dropAsyncAndAwaitEnd("t");

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("FAILED");
    assertThat(job.get("lastError").asText()).contains(path(manifest.path()).toString()).contains("does not exist");
    assertThat(path(metadata)).exists();
  }

  @Test
  void aLocationAlreadyEmptyIsASuccess() throws Exception {
    Table table = hadoopWrittenTable("t");
    deleteTree(path(table.location()));

    JsonNode job = dropAsyncAndAwaitEnd("t");

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
  }

  // ---- rule 1: files outside the table location are kept ----

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aStatisticsFileOutsideTheWarehouseIsKeptAndCounted(boolean async) throws Exception {
    Table table = hadoopWrittenTable("t");
    Path outside = Files.createDirectories(dir.resolve("outside")).resolve("stats-" + UUID.randomUUID() + ".puffin");
    Snapshot current = table.currentSnapshot();
    OutputFile stats = table.io().newOutputFile(outside.toString());
    PuffinWriter puffin = Puffin.write(stats).createdBy("test").build();
    try (puffin) {
      puffin.add(new Blob("ndv", List.of(1), current.snapshotId(), current.sequenceNumber(),
          ByteBuffer.wrap("ndv".getBytes(StandardCharsets.UTF_8))));
    }
    table.updateStatistics().setStatistics(new GenericStatisticsFile(current.snapshotId(), stats.location(),
        puffin.fileSize(), puffin.footerSize(), GenericBlobMetadata.from(puffin.writtenBlobsMetadata()))).commit();
    byte[] before = Files.readAllBytes(outside);

    if (async) {
      JsonNode job = dropAsyncAndAwaitEnd("t");
      assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
      assertThat(job.get("keptFiles").asLong()).isEqualTo(1);
    } else {
      assertThat(client.dropTable(id("t"), true)).isTrue();
    }

    assertThat(outside).exists();
    assertThat(Files.readAllBytes(outside)).isEqualTo(before);
    assertThat(path(table.location())).doesNotExist();
  }

  @Test
  void aDataFileAppendedFromOutsideTheTableLocationIsKept() throws Exception {
    Table table = hadoopWrittenTable("t");
    DataFile written = write(table, 100, "books");
    Path outside = Files.createDirectories(dir.resolve("elsewhere")).resolve("borrowed.parquet");
    Files.copy(path(written.location()), outside);
    table.newAppend().appendFile(DataFiles.builder(table.spec()).copy(written).withPath(outside.toString()).build())
        .commit();

    JsonNode job = dropAsyncAndAwaitEnd("t");

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    assertThat(job.get("keptFiles").asLong()).isEqualTo(1);
    assertThat(outside).exists();
    assertThat(path(table.location())).doesNotExist();
  }

  // ---- rule 5 (the read side): a corrupt metadata file fails fast ----

  @Test
  void aTruncatedMetadataFileFailsLoadSyncAndAsyncPurgeWithinSeconds() throws Exception {
    Table table = hadoopWrittenTable("t");
    String metadata = ((BaseTable) table).operations().current().metadataFileLocation();
    byte[] json = Files.readAllBytes(path(metadata));
    Files.write(path(metadata), java.util.Arrays.copyOf(json, json.length / 2));
    ServerHttp http = new ServerHttp(server);

    HttpResponse<String> load = assertTimeout(Duration.ofSeconds(5),
        () -> http.send("GET", "/iceberg/v1/main/namespaces/db/tables/t", null, Map.of()));
    assertThat(load.statusCode()).as(load.body()).isGreaterThanOrEqualTo(400);
    // the synchronous purge is a durable job (docs/design/0051-synchronous-purge-is-a-durable-job.md):
    // the entry is dropped, the job fails at once for good, naming the file, and keeps every file
    HttpResponse<String> sync = assertTimeout(Duration.ofSeconds(5),
        () -> http.send("DELETE", "/iceberg/v1/main/namespaces/db/tables/t?purgeRequested=true", null, Map.of()));
    assertThat(sync.statusCode()).as(sync.body()).isEqualTo(204);
    assertThat(sync.headers().firstValue("X-Lethe-Purge-State")).contains("FAILED");
    assertThat(path(metadata)).exists();
    JsonNode syncJob = job("t");
    assertThat(syncJob.get("state").asText()).as(syncJob.toString()).isEqualTo("FAILED");
    assertThat(syncJob.get("lastError").asText()).contains(metadata.replaceFirst("^file:", ""));

    Table other = hadoopWrittenTable("u");
    String otherMetadata = ((BaseTable) other).operations().current().metadataFileLocation();
    byte[] otherJson = Files.readAllBytes(path(otherMetadata));
    Files.write(path(otherMetadata), java.util.Arrays.copyOf(otherJson, otherJson.length / 2));
    JsonNode job = assertTimeout(Duration.ofSeconds(10), () -> dropAsyncAndAwaitEnd("u"));
    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("FAILED");
    assertThat(job.get("lastError").asText()).contains(otherMetadata.replaceFirst("^file:", ""));
    assertThat(path(otherMetadata)).exists();
  }

  // ---- helpers ----

  private static TableIdentifier id(String name) {
    return TableIdentifier.of(NS, name);
  }

  /** A partitioned table with three Parquet snapshots written through the client's default FileIO. */
  private Table hadoopWrittenTable(String name) throws IOException {
    Table table = client.buildTable(id(name), SCHEMA).withPartitionSpec(SPEC).create();
    assertThat(table.io().getClass().getName()).doesNotContain("LocalFileIO");
    for (int i = 0; i < 3; i++) {
      DataFile file = write(table, i * 10L, i % 2 == 0 ? "books" : "games");
      table.newAppend().appendFile(file).commit();
    }
    table.refresh();
    // the premise of the .crc case: Hadoop's local file system wrote checksum sidecars
    assertThat(files(table.location())).anyMatch(p -> p.getFileName().toString().endsWith(".crc"));
    return table;
  }

  private DataFile write(Table table, long firstId, String category) throws IOException {
    List<Record> records = new ArrayList<>();
    for (long i = firstId; i < firstId + 5; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", i);
      r.setField("category", category);
      records.add(r);
    }
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, ++taskId).format(FileFormat.PARQUET).build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(records.get(0));
    EncryptedOutputFile out = outputs.newOutputFile(table.spec(), key);
    DataWriter<Record> writer = writers.newDataWriter(out, table.spec(), key);
    try (writer) {
      records.forEach(writer::write);
    }
    return writer.toDataFile();
  }

  /** Drops {@code name} with the async header and waits (Awaitility) until its job ends. */
  private JsonNode dropAsyncAndAwaitEnd(String name) throws Exception {
    HttpResponse<String> r = new ServerHttp(server).send("DELETE",
        "/iceberg/v1/main/namespaces/db/tables/" + name + "?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
    return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> job(name), j -> j != null && Set.of("SUCCEEDED", "FAILED").contains(j.get("state").asText()));
  }

  private JsonNode job(String name) throws Exception {
    HttpResponse<String> r = new ServerHttp(server).send("GET",
        "/api/metalakes/default/catalogs/main/cleanups?name=" + name, null, Map.of());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode jobs = ServerHttp.JSON.readTree(r.body()).get("cleanups");
    return jobs.size() == 0 ? null : jobs.get(0);
  }

  private static Path path(String location) {
    return Path.of(location.replaceFirst("^file:(//)?", ""));
  }

  private static Set<Path> files(String location) throws IOException {
    Set<Path> out = new TreeSet<>();
    Path d = path(location);
    if (!Files.exists(d)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(d)) {
      walk.filter(Files::isRegularFile).forEach(out::add);
    }
    return out;
  }

  private static void deleteTree(Path d) throws IOException {
    try (Stream<Path> walk = Files.walk(d)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
