package dev.lethe.server.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cleanup job's {@code lastError} as a reader and as an admin read it, through a real server with
 * auth on (docs/design/0424-what-a-reader-sees-of-paths.md): a FAILED async purge whose manifest is
 * missing names the manifest; the reader sees it relative to the table root and no absolute path,
 * the admin sees the stored text.
 */
class LastErrorForReadersRoutesTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer admin-token");
  private static final Map<String, String> READER = Map.of("Authorization", "Bearer reader-token");

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private RESTCatalog client;

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
  @ValueSource(strings = {"h2", "postgresql"})
  void aReaderSeesTheFailedJobsPathsRelativeToTheTableAndAnAdminSeesThemWhole(String backend) throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token") + "\n    read: [main]\n");
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "1");
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    props.put(ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1");
    Path warehouse = dir.resolve("warehouse");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), databases.create(backend, dir),
        null, null, 8, warehouse.toString(), ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, props));
    client = new RESTCatalog();
    client.initialize("lethe", Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg", "warehouse", "main",
        "token", "admin-token"));
    client.createNamespace(Namespace.of("db"));
    Table table = client.buildTable(TableIdentifier.of("db", "t"), SCHEMA).withPartitionSpec(PartitionSpec.unpartitioned())
        .create();
    DataFile data = DataFiles.builder(table.spec()).withPath(table.location() + "/data/a.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(1).build();
    table.newAppend().appendFile(data).commit();
    table.refresh();
    ManifestFile manifest = table.currentSnapshot().allManifests(table.io()).get(0);
    Path manifestPath = path(manifest.path());
    Path root = path(table.location());
    Files.delete(manifestPath);

    HttpResponse<String> drop = new ServerHttp(server).send("DELETE",
        "/iceberg/v1/main/namespaces/db/tables/t?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true", "Authorization", "Bearer admin-token"));
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(204);
    JsonNode asAdmin = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> job(ADMIN), j -> j != null && Set.of("SUCCEEDED", "FAILED").contains(j.get("state").asText()));
    assertThat(asAdmin.get("state").asText()).as(asAdmin.toString()).isEqualTo("FAILED");
    assertThat(asAdmin.get("lastError").asText()).contains(manifestPath.toString());

    String asReader = job(READER).get("lastError").asText();
    assertThat(asReader).doesNotContain(dir.toString()).doesNotContain(warehouse.toString())
        .contains(LastErrorRedaction.TABLE + "/" + root.relativize(manifestPath))
        .contains("does not exist");
    // no absolute path of any spelling is left
    assertThat(asReader).doesNotContainPattern("(^|[\\s'\"(])(file:)?/[A-Za-z0-9]");
  }

  private JsonNode job(Map<String, String> token) throws Exception {
    HttpResponse<String> r = new ServerHttp(server).send("GET", "/api/metalakes/default/catalogs/main/cleanups?name=t",
        null, token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode jobs = ServerHttp.JSON.readTree(r.body()).get("cleanups");
    return jobs.size() == 0 ? null : jobs.get(0);
  }

  private static Path path(String location) {
    return Path.of(location.replaceFirst("^file:(//)?", ""));
  }
}
