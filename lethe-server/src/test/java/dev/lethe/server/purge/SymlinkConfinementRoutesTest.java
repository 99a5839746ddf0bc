package dev.lethe.server.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No symbolic link below the warehouse is followed by a read, a write or a delete of the catalog
 * (docs/design/0007-no-symbolic-link-below-the-warehouse.md), over real HTTP on a real server on H2
 * and PostgreSQL, with tables written by iceberg-java's RESTCatalog: a client that can create links
 * in the warehouse makes a file of the table lead outside it. The sync and the async purge keep
 * the file outside, report it in {@code keptFiles} and leave the table's own files gone; a purge
 * that would have to read metadata through a link fails naming it and deletes nothing; a commit
 * that would write metadata through a link is 400 and writes nothing.
 */
class SymlinkConfinementRoutesTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("db");
  private static final byte[] PRECIOUS = "precious data outside the warehouse".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private RESTCatalog client;
  private Path outside;
  private Path warehouse;

  static Stream<Arguments> backendsAndRoutes() {
    return Stream.of("h2", "postgresql").flatMap(b -> Stream.of(Arguments.of(b, false), Arguments.of(b, true)));
  }

  private void start(String backend) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1");
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    props.put(ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1");
    String jdbcUrl = databases.create(backend, dir);
    warehouse = dir.resolve("warehouse");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), jdbcUrl, null, null, 8,
        warehouse.toString(),
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    client = new RESTCatalog();
    client.initialize("lethe", Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg", "warehouse", "main"));
    client.createNamespace(NS);
    outside = Files.createDirectories(dir.resolve("outside"));
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

  // ---- the purge keeps what a link leads to ----

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aDataFileUnderADirectoryLinkInsideTheTableIsKept(String backend, boolean async) throws Exception {
    start(backend);
    Table table = table("t");
    Path victim = precious(outside.resolve("target.txt"));
    Files.createSymbolicLink(Files.createDirectories(path(table.location()).resolve("data")).resolve("linkdir"), outside);
    append(table, path(table.location()).resolve("data/linkdir/target.txt"));

    JsonNode job = purge("t", async);

    assertKeptAndGone(job, 1, victim, table);
  }

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aDataFileThatIsItselfALinkIsKeptAndOnlyTheLinkGoes(String backend, boolean async) throws Exception {
    start(backend);
    Table table = table("t");
    Path victim = precious(outside.resolve("target.parquet"));
    Path link = Files.createDirectories(path(table.location()).resolve("data")).resolve("target.parquet");
    Files.createSymbolicLink(link, victim);
    append(table, link);

    JsonNode job = purge("t", async);

    assertKeptAndGone(job, 1, victim, table);
  }

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aLinkMadeAfterTheCommitInAnyComponentOnTheWayIsNotFollowed(String backend, boolean async) throws Exception {
    start(backend);
    Table table = table("t");
    // committed while a/b is a real directory of the table; then a client moves it out and links it
    Path a = path(table.location()).resolve("data/a");
    Path committed = precious(Files.createDirectories(a.resolve("b")).resolve("target.txt"));
    append(table, committed);
    Files.move(a, outside.resolve("a"));
    Files.createSymbolicLink(a, outside.resolve("a"));
    Path victim = outside.resolve("a/b/target.txt");

    JsonNode job = purge("t", async);

    assertKeptAndGone(job, 1, victim, table);
  }

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aWriteDataPathRootBehindALinkIsNeitherPurgedNorSwept(String backend, boolean async) throws Exception {
    start(backend);
    // the table's own root write.data.path lies under a directory a client replaced by a link
    Path ext = warehouse.resolve("db/t-ext");
    Table table = client.buildTable(id("t"), SCHEMA)
        .withProperty(TableProperties.WRITE_DATA_LOCATION, ext.resolve("data").toString()).create();
    Path committed = precious(Files.createDirectories(ext.resolve("data")).resolve("f1.parquet"));
    append(table, committed);
    Files.writeString(ext.resolve("data/notes.txt"), "no metadata names me");
    Files.move(ext, outside.resolve("ext"));
    Files.createSymbolicLink(ext, outside.resolve("ext"));
    Path victim = outside.resolve("ext/data/f1.parquet");
    Path unnamed = outside.resolve("ext/data/notes.txt");

    JsonNode job = purge("t", async);

    assertKeptAndGone(job, 1, victim, table);
    assertThat(unnamed).hasContent("no metadata names me"); // the sweep did not walk through the link
    assertThat(Files.isSymbolicLink(ext)).isTrue(); // the namespace directory's entry, not the table's root
  }

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aDotDotSpellingThroughALinkIsKept(String backend, boolean async) throws Exception {
    start(backend);
    Table table = table("t");
    Path deep = Files.createDirectories(outside.resolve("deep/dir"));
    Path victim = precious(outside.resolve("deep/escape.txt"));
    Files.createSymbolicLink(Files.createDirectories(path(table.location()).resolve("data")).resolve("linkdir"), deep);
    // the OS resolves linkdir/.. to outside/deep
    append(table, path(table.location()).toString() + "/data/linkdir/../escape.txt");

    JsonNode job = purge("t", async);

    assertKeptAndGone(job, 1, victim, table);
  }

  // ---- reads through a link are refused ----

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aManifestReachedThroughALinkIsNotReadAndThePurgeFailsNamingIt(String backend, boolean async) throws Exception {
    start(backend);
    Table table = table("t");
    append(table, precious(Files.createDirectories(path(table.location()).resolve("data")).resolve("f1.parquet")));
    ManifestFile manifest = table.currentSnapshot().allManifests(table.io()).get(0);
    Path manifestPath = path(manifest.path());
    Path copy = outside.resolve("manifest.avro");
    Files.move(manifestPath, copy);
    Files.createSymbolicLink(manifestPath, copy);
    byte[] before = Files.readAllBytes(copy);
    String metadata = ((BaseTable) table).operations().current().metadataFileLocation();

    JsonNode job = purge("t", async);

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("FAILED");
    assertThat(job.get("lastError").asText()).contains(manifestPath.getFileName().toString()).contains("symbolic link");
    assertThat(Files.readAllBytes(copy)).isEqualTo(before);
    assertThat(path(metadata)).exists(); // the metadata is kept for the operator
  }

  @ParameterizedTest(name = "{0}, async={1}")
  @MethodSource("backendsAndRoutes")
  void aTableLocationThatBecameALinkIsNotReadNorPurged(String backend, boolean async) throws Exception {
    start(backend);
    Table table = table("t");
    append(table, precious(Files.createDirectories(path(table.location()).resolve("data")).resolve("f1.parquet")));
    Path location = path(table.location());
    Files.move(location, outside.resolve("t"));
    Files.createSymbolicLink(location, outside.resolve("t"));
    Set<Path> before = files(outside.resolve("t"));

    HttpResponse<String> load = new ServerHttp(server).send("GET", "/iceberg/v1/main/namespaces/db/tables/t", null,
        Map.of());
    assertThat(load.statusCode()).as(load.body()).isEqualTo(400);
    assertThat(load.body()).contains("symbolic link");

    JsonNode job = purge("t", async);

    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("FAILED");
    assertThat(job.get("lastError").asText()).contains("symbolic link").contains(location.getFileName().toString());
    assertThat(files(outside.resolve("t"))).isEqualTo(before).isNotEmpty();
  }

  // ---- writes through a link are refused ----

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void aCommitWritingMetadataThroughALinkedWriteMetadataPathIsRefusedAndWritesNothing(String backend) throws Exception {
    start(backend);
    Table table = table("t");
    Path link = path(table.location()).resolve("meta-link");
    Files.createSymbolicLink(link, outside);

    org.assertj.core.api.Assertions.assertThatThrownBy(() ->
            table.updateProperties().set(TableProperties.WRITE_METADATA_LOCATION, link.toString()).commit())
        .isInstanceOf(BadRequestException.class).hasMessageContaining("symbolic link");

    assertThat(files(outside)).isEmpty();
    assertThat(client.loadTable(id("t")).properties()).doesNotContainKey(TableProperties.WRITE_METADATA_LOCATION);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void aCreateUnderALinkedDirectoryIsRefusedAndWritesNothing(String backend) throws Exception {
    start(backend);
    Path linked = warehouse.resolve("db/linked");
    Files.createDirectories(linked.getParent());
    Files.createSymbolicLink(linked, outside);

    org.assertj.core.api.Assertions.assertThatThrownBy(() ->
            client.buildTable(id("t"), SCHEMA).withLocation(linked.resolve("t").toString()).create())
        .isInstanceOf(BadRequestException.class).hasMessageContaining("symbolic link");

    assertThat(files(outside)).isEmpty();
    assertThat(client.tableExists(id("t"))).isFalse();
  }

  // ---- helpers ----

  private static TableIdentifier id(String name) {
    return TableIdentifier.of(NS, name);
  }

  private Table table(String name) {
    return client.buildTable(id(name), SCHEMA).withPartitionSpec(PartitionSpec.unpartitioned()).create();
  }

  private static void append(Table table, Path file) throws IOException {
    append(table, file.toString());
  }

  private static void append(Table table, String location) {
    DataFile data = DataFiles.builder(table.spec()).withPath(location).withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(PRECIOUS.length).withRecordCount(1).build();
    table.newAppend().appendFile(data).commit();
  }

  private static Path precious(Path file) throws IOException {
    return Files.write(file, PRECIOUS);
  }

  /** The outside file is intact, the purge says it kept it, and the table's own files are gone. */
  private static void assertKeptAndGone(JsonNode job, long kept, Path victim, Table table) throws IOException {
    assertThat(victim).exists();
    assertThat(Files.readAllBytes(victim)).isEqualTo(PRECIOUS);
    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    assertThat(job.get("keptFiles").asLong()).as(job.toString()).isEqualTo(kept);
    assertThat(Files.exists(path(table.location()), java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  /** Purges {@code name} synchronously or with the async header and returns its ended job. */
  private JsonNode purge(String name, boolean async) throws Exception {
    HttpResponse<String> r = new ServerHttp(server).send("DELETE",
        "/iceberg/v1/main/namespaces/db/tables/" + name + "?purgeRequested=true", null,
        async ? Map.of("X-Lethe-Async-Purge", "true") : Map.of());
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

  private static Set<Path> files(Path d) throws IOException {
    Set<Path> out = new java.util.TreeSet<>();
    if (!Files.exists(d)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(d)) {
      walk.filter(p -> !Files.isDirectory(p)).forEach(out::add);
    }
    return out;
  }
}
