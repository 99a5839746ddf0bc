package dev.lethe.server.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET …/tables/{t}/purge-preview} over real HTTP on a real server with auth on
 * (docs/design/0442-purge-preview.md): a table written by iceberg-java's RESTCatalog with its
 * default FileIO and Iceberg's Parquet writers, previewed live, then soft-deleted and previewed
 * again, then purged: the preview's counts are what the purge deleted, file for file.
 */
class PurgePreviewRoutesTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "category", Types.StringType.get()));
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("category").build();
  private static final Namespace NS = Namespace.of("db");
  private static final String API = "/api/metalakes/default/catalogs/main/schemas/db/tables";

  @TempDir Path dir;
  private LetheServer server;
  private RESTCatalog client;
  private int taskId;

  @BeforeEach
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("elsewhere", "elsewhere-token", "[other]", "[other]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.SOFT_DELETE_ENABLED, "true");
    props.put(ConfigKeys.SOFT_DELETE_RETENTION_MS, "86400000");
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1");
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, props));
    client = new RESTCatalog();
    // no io-impl: the client's default FileIO (Hadoop's, which writes .crc sidecars)
    client.initialize("lethe", Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg", "warehouse", "main",
        "token", "root-token"));
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

  @Test
  void aPreviewLiveAndSoftDeletedIsWhatThePurgeThenDeletes() throws Exception {
    Table table = written("t");
    Set<Path> before = files(table.location());

    JsonNode live = preview("t", "root-token");
    assertThat(live.get("state").asText()).isEqualTo("LIVE");
    assertThat(live.get("wouldFail").isNull()).isTrue();
    JsonNode kinds = live.get("wouldDelete").get("kinds");
    assertThat(kinds.get("dataAndDeleteFiles").get("files").asLong()).isEqualTo(3);
    assertThat(kinds.get("manifests").get("files").asLong()).isEqualTo(3);
    assertThat(kinds.get("manifestLists").get("files").asLong()).isEqualTo(3);
    assertThat(kinds.get("previousMetadataFiles").get("files").asLong()).isEqualTo(3);
    assertThat(kinds.get("currentMetadataFile").get("files").asLong()).isEqualTo(1);
    assertThat(kinds.get("unnamedUnderRoots").get("exact").asBoolean()).isTrue();
    assertThat(live.get("wouldDelete").get("total").asLong()).isEqualTo(before.size());
    long onDisk = 0;
    for (Path p : before) {
      onDisk += Files.size(p);
    }
    assertThat(live.get("wouldDelete").get("bytes").asLong()).as("bytes == the files' sizes").isEqualTo(onDisk);
    assertThat(live.get("wouldDelete").get("bytesByKind").get("dataFiles").get("files").asLong()).isEqualTo(3);
    assertThat(live.get("alreadyGone").get("files").asLong()).isZero();
    assertThat(live.get("roots").get(0).asText()).isEqualTo(path(table.location()).toString());
    assertThat(files(table.location())).as("a preview deletes nothing").isEqualTo(before);

    // soft drop: the retained deletion is previewed from its metadata
    assertThat(send("DELETE", API + "/t?purgeRequested=true", "root-token").statusCode()).isEqualTo(204);
    JsonNode deleted = preview("t", "root-token");
    assertThat(deleted.get("state").asText()).isEqualTo("DELETED");
    assertThat(deleted.get("wouldDelete")).isEqualTo(live.get("wouldDelete"));

    HttpResponse<String> purge = send("POST", API + "/t/purge", "root-token");
    assertThat(purge.statusCode()).as(purge.body()).isIn(200, 202);
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> !Files.exists(path(table.location())));
    Set<Path> named = new TreeSet<>();
    kinds.fields().forEachRemaining(e -> e.getValue().get("sample").forEach(s -> named.add(path(s.asText()))));
    // every sample is whole (fewer than 20 per kind): the union is the set the purge deleted
    assertThat(named).isEqualTo(before);
  }

  @Test
  void aReaderMayPreviewAndSeesNoAbsolutePathNoTokenIs401() throws Exception {
    Table table = written("t");
    HttpResponse<String> reader = send("GET", API + "/t/purge-preview", "reader-token");
    assertThat(reader.statusCode()).as(reader.body()).isEqualTo(200);
    assertThat(reader.body()).contains("<table>").doesNotContain(path(table.location()).toString());
    assertThat(send("GET", API + "/t/purge-preview", null).statusCode()).isEqualTo(401);
    assertThat(send("GET", API + "/t/purge-preview", "elsewhere-token").statusCode()).isEqualTo(403);
    HttpResponse<String> unknown = send("GET", API + "/nope/purge-preview", "reader-token");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(ServerHttp.JSON.readTree(unknown.body()).get("type").asText()).isEqualTo("NoSuchTableException");
  }

  private JsonNode preview(String name, String token) throws Exception {
    HttpResponse<String> r = send("GET", API + "/" + name + "/purge-preview", token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return ServerHttp.JSON.readTree(r.body());
  }

  private HttpResponse<String> send(String method, String path, String token) throws Exception {
    return new ServerHttp(server).send(method, path, null,
        token == null ? Map.of() : Map.of("Authorization", "Bearer " + token));
  }

  private static String principal(String name, String token, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + TokenHash.sha256Hex(token) + "\n    read: " + read
        + "\n    write: " + write + "\n";
  }

  /** A partitioned table with three Parquet snapshots written through the client's default FileIO. */
  private Table written(String name) throws IOException {
    Table table = client.buildTable(TableIdentifier.of(NS, name), SCHEMA).withPartitionSpec(SPEC).create();
    for (int i = 0; i < 3; i++) {
      table.newAppend().appendFile(write(table, i * 10L, i % 2 == 0 ? "books" : "games")).commit();
    }
    table.refresh();
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
}
