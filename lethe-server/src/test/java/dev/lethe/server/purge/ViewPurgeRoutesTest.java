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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Item 5 of the safety-holes issue over real HTTP on a real server
 * (docs/design/0005-a-purged-view-leaves-nothing.md): a view dropped with {@code
 * X-Lethe-Async-Purge: true} after several versions leaves none of its metadata files, and a view
 * sharing its location keeps every one of its own.
 */
class ViewPurgeRoutesTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("db");

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private RESTCatalog client;
  private Path warehouse;

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
  void anAsyncViewPurgeLeavesNoneOfItsVersionsAndKeepsAViewSharingItsLocation(String backend) throws Exception {
    start(backend);
    Path shared = warehouse.resolve("db").resolve("views");
    version("v", shared, "select 1", true);
    version("v", shared, "select 2", false);
    version("v", shared, "select 3", false);
    version("w", shared, "select 10", true);
    version("w", shared, "select 11", false);
    Set<Path> all = files(shared);
    assertThat(all).as("the premise: 3 versions of v and 2 of w in one directory").hasSize(5);

    JsonNode job = dropAsyncAndAwaitEnd("v");
    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    Set<Path> left = files(shared);
    assertThat(left).as("every metadata file of v is gone, w's stay").hasSize(2);
    View w = client.loadView(id("w"));
    assertThat(w.currentVersion().versionId()).isEqualTo(2);
    assertThat(w.history()).hasSize(2);

    job = dropAsyncAndAwaitEnd("w");
    assertThat(job.get("state").asText()).as(job.toString()).isEqualTo("SUCCEEDED");
    assertThat(files(shared)).isEmpty();
    assertThat(shared).as("the emptied view location goes too").doesNotExist();
    assertThat(shared.getParent()).isDirectory();
  }

  private void version(String name, Path location, String sql, boolean create) {
    var builder = client.buildView(id(name)).withSchema(SCHEMA).withDefaultNamespace(NS).withQuery("spark", sql)
        .withLocation(location.toString());
    if (create) {
      builder.create();
    } else {
      builder.replace();
    }
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.of(NS, name);
  }

  private JsonNode dropAsyncAndAwaitEnd(String name) throws Exception {
    HttpResponse<String> r = new ServerHttp(server).send("DELETE", "/iceberg/v1/main/namespaces/db/views/" + name, null,
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

  private static Set<Path> files(Path d) throws IOException {
    Set<Path> out = new TreeSet<>();
    if (!Files.exists(d)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(d)) {
      walk.filter(Files::isRegularFile).forEach(out::add);
    }
    return out;
  }
}
