package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.jdbc.FreshStoreDatabases;
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
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Item 1 of the safety-holes issue over real HTTP on a real server (docs/design/0004-a-table-owns-
 * every-root-its-snapshots-use.md): a table moved by a commit ({@code set-location}, a changed {@code
 * write.data.path} or {@code write.metadata.path}) while its snapshots still name files under the old
 * path keeps that path: a create, register or move of another table into it is refused and changes
 * nothing, the moved table still scans, and its purge deletes its files at the old path too. Tables
 * are written by iceberg-java's RESTCatalog with its default FileIO and Iceberg's Parquet writers.
 */
class MovedTableRoutesTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "category", Types.StringType.get()));
  private static final Namespace NS = Namespace.of("db");

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private RESTCatalog client;
  private Path warehouse;
  private int taskId;

  private void start(String backend) throws Exception {
    String jdbc = databases.create(backend, dir);
    warehouse = dir.resolve("warehouse");
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1");
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    props.put(ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), jdbc, null, null, 4,
        warehouse.toString(), ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    client = new RESTCatalog();
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
    databases.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aTableMovedBySetLocationKeepsItsOldLocationAndItsPurgeDeletesThere(String backend) throws Exception {
    start(backend);
    Table a = tableWithData("a", Map.of());
    String old = a.location();
    String preMove = metadataOf(a);
    Path moved = warehouse.resolve("db").resolve("a-moved");
    a.updateLocation().setLocation(moved.toString()).commit();
    append(a, 100, "c");
    Set<Path> oldFiles = files(old);
    assertThat(oldFiles).as("the premise: a's current snapshots name files under its old location").isNotEmpty();

    assertThatThrownBy(() -> client.buildTable(id("b"), SCHEMA).withLocation(old).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("held by live table db.a");
    assertThatThrownBy(() -> client.buildTable(id("b"), SCHEMA).withLocation("file://" + path(old) + "/inner").create())
        .isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(() -> client.registerTable(id("copy"), preMove))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("held by live table db.a");
    Table c = client.createTable(id("c"), SCHEMA);
    assertThatThrownBy(() -> c.updateLocation().setLocation(old).commit())
        .as("refused once, not the CommitFailedException a client retries")
        .isInstanceOf(BadRequestException.class).hasMessageContaining("held by live table db.a");
    HttpResponse<String> raw = new ServerHttp(server).send("POST", "/iceberg/v1/main/namespaces/db/tables/c",
        "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":"
            + ServerHttp.JSON.writeValueAsString(old) + "}]}", Map.of());
    assertThat(raw.statusCode()).as(raw.body()).isEqualTo(400);
    assertThat(ServerHttp.JSON.readTree(raw.body()).get("error").get("type").asText()).isEqualTo("LocationHeldException");
    client.buildView(id("v")).withSchema(SCHEMA).withDefaultNamespace(NS).withQuery("spark", "select 1").create();
    assertThatThrownBy(() -> client.buildView(id("v")).withSchema(SCHEMA).withDefaultNamespace(NS)
            .withQuery("spark", "select 2").withLocation(old).replace())
        .as("a view replace is a commit too").isInstanceOf(BadRequestException.class)
        .hasMessageContaining("held by live table db.a");
    assertThat(client.tableExists(id("b"))).isFalse();
    assertThat(client.tableExists(id("copy"))).isFalse();
    assertThat(client.loadTable(id("c")).location()).isEqualTo(c.location());
    assertThat(files(old)).as("nothing written into a's old location").isEqualTo(oldFiles);
    assertThat(ids(client.loadTable(id("a")))).hasSize(20);

    assertThat(client.dropTable(id("a"), true)).isTrue();
    assertThat(files(old)).as("a's purge deletes its files at its old location").isEmpty();
    assertThat(files(moved.toString())).isEmpty();
    assertThat(path(old)).doesNotExist();
    // released with the purge: the old location is free again
    client.buildTable(id("b"), SCHEMA).withLocation(old).create();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aChangedWriteDataPathKeepsTheOldOneAndTheAsyncPurgeDeletesThere(String backend) throws Exception {
    start(backend);
    Path dataA = warehouse.resolve("data-a");
    Table a = tableWithData("a", Map.of("write.data.path", dataA.toString()));
    a.updateProperties().set("write.data.path", warehouse.resolve("data-a2").toString()).commit();
    append(a, 100, "c");
    Set<Path> oldFiles = files(dataA.toString());
    assertThat(oldFiles).isNotEmpty();

    assertThatThrownBy(() -> client.buildTable(id("b"), SCHEMA).withLocation(dataA.toString()).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("held by live table db.a");
    assertThatThrownBy(() -> client.buildTable(id("b"), SCHEMA).withProperty("write.data.path", "file:" + dataA).create())
        .isInstanceOf(AlreadyExistsException.class);
    Table c = client.createTable(id("c"), SCHEMA);
    assertThatThrownBy(() -> c.updateProperties().set("write.data.path", dataA.resolve("x").toString()).commit())
        .isInstanceOf(BadRequestException.class).hasMessageContaining("held by live table db.a");
    assertThat(files(dataA.toString())).isEqualTo(oldFiles);
    assertThat(ids(client.loadTable(id("a")))).hasSize(20);

    JsonNode job = dropAsyncAndAwaitEnd("a");
    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    assertThat(job.get("keptFiles").asLong()).as(job.toString()).isZero();
    assertThat(files(dataA.toString())).as("a's purge deletes its data files at its old write.data.path").isEmpty();
    assertThat(files(warehouse.resolve("data-a2").toString())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aChangedWriteMetadataPathKeepsTheOldOneWhileItsManifestsAreInUse(String backend) throws Exception {
    start(backend);
    Path metaA = warehouse.resolve("meta-a");
    Table a = tableWithData("a", Map.of("write.metadata.path", metaA.toString()));
    a.updateProperties().set("write.metadata.path", warehouse.resolve("meta-a2").toString()).commit();
    append(a, 100, "c");
    assertThat(files(metaA.toString())).anyMatch(p -> p.toString().endsWith(".avro"));

    assertThatThrownBy(() -> client.buildTable(id("b"), SCHEMA).withLocation(metaA.toString()).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("held by live table db.a");
    assertThat(ids(client.loadTable(id("a")))).hasSize(20);

    assertThat(client.dropTable(id("a"), true)).isTrue();
    assertThat(files(metaA.toString())).as("a's purge deletes its manifests at its old write.metadata.path").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void theOldLocationIsReleasedOnceNoKeptSnapshotUsesIt(String backend) throws Exception {
    start(backend);
    Table a = tableWithData("a", Map.of());
    String old = a.location();
    a.updateLocation().setLocation(warehouse.resolve("db").resolve("a-moved").toString()).commit();
    append(a, 100, "c");
    assertThatThrownBy(() -> client.buildTable(id("b"), SCHEMA).withLocation(old).create())
        .isInstanceOf(AlreadyExistsException.class);

    // rewrite every old row under the new location, then expire every snapshot that named the old files
    a.refresh();
    a.newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();
    append(a, 200, "d");
    a.refresh();
    a.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).deleteWith(f -> { }).commit();

    Table b = client.buildTable(id("b"), SCHEMA).withLocation(old).create();
    assertThat(b.location()).isEqualTo(old);
    assertThat(ids(client.loadTable(id("a")))).hasSize(5);
  }

  // ---- helpers ----

  private Table tableWithData(String name, Map<String, String> properties) throws IOException {
    Table table = client.buildTable(id(name), SCHEMA).withProperties(properties).create();
    append(table, 0, "a");
    append(table, 10, "b");
    append(table, 20, "b");
    table.refresh();
    return table;
  }

  private void append(Table table, long firstId, String category) throws IOException {
    table.refresh();
    List<Record> records = new ArrayList<>();
    for (long i = firstId; i < firstId + 5; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", i);
      r.setField("category", category);
      records.add(r);
    }
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, ++taskId).format(FileFormat.PARQUET).build();
    EncryptedOutputFile out = outputs.newOutputFile();
    DataWriter<Record> writer = writers.newDataWriter(out, table.spec(), null);
    try (writer) {
      records.forEach(writer::write);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }

  private static List<Long> ids(Table table) throws IOException {
    List<Long> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add((Long) r.getField("id")));
    }
    return out;
  }

  private static String metadataOf(Table table) {
    return ((BaseTable) table).operations().current().metadataFileLocation();
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.of(NS, name);
  }

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
}
