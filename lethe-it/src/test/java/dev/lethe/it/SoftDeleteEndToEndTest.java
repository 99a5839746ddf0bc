package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The soft deletion journeys of the design (docs/design/0202-soft-deletion.md §5) that need no expiry, over HTTP against a real
 * server process (embedded H2, soft delete on, 24 h retention), with real Parquet tables written
 * and read by iceberg-java's RESTCatalog: drop → list → undrop, the name held during the window,
 * and bad input.
 */
class SoftDeleteEndToEndTest {
  private static final Namespace NS = Namespace.of("sd");
  private static final PartitionSpec BY_CATEGORY = PartitionSpec.builderFor(PurgeTables.SCHEMA).identity("category").build();
  private static PurgeServer server;
  private static RESTCatalog catalog;
  private static SoftDeleteHttp api;

  @BeforeAll
  static void start() throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dataDir = Files.createTempDirectory(work, "soft-delete-");
    server = PurgeServer.start(dataDir, AsyncPurgeHttp.configArgs(dataDir, Map.of(
        "lethe.entity.soft-delete.enabled", "true")));
    catalog = AsyncPurgeHttp.client(server.icebergUri(), "main");
    catalog.createNamespace(NS);
    api = new SoftDeleteHttp(server.base(), "sd");
  }

  @AfterAll
  static void stop() throws Exception {
    if (catalog != null) {
      catalog.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static Table create(String name) {
    Table t = catalog.buildTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA).withPartitionSpec(BY_CATEGORY).create();
    PurgeTables.append(t, 0, 5, "a");
    PurgeTables.append(t, 10, 5, "b");
    return catalog.loadTable(TableIdentifier.of(NS, name));
  }

  private static String metadataLocation(Table t) {
    return ((BaseTable) t).operations().current().metadataFileLocation();
  }

  @Test
  void dropListsItRecoverableWithTimeLeftAndUndropBringsBackTheSameTableMetadataAndRows() throws Exception {
    Table table = create("orders");
    String uuid = table.uuid().toString();
    String metadata = metadataLocation(table);
    List<String> rows = SoftDeleteHttp.rows(table);
    Set<Path> files = PurgeTables.files(table.location());
    assertThat(rows).hasSize(10);

    assertThat(api.icebergDrop("sd", "orders", true).statusCode()).isEqualTo(204);

    TableIdentifier id = TableIdentifier.of(NS, "orders");
    assertThat(catalog.tableExists(id)).isFalse();
    assertThatThrownBy(() -> catalog.loadTable(id)).isInstanceOf(NoSuchTableException.class);
    assertThat(catalog.listTables(NS)).doesNotContain(id);
    JsonNode listed = null;
    for (JsonNode d : api.deleted()) {
      if (d.get("name").asText().equals("orders")) {
        listed = d;
      }
    }
    assertThat(listed).isNotNull();
    assertThat(listed.get("recoverable").asBoolean()).isTrue();
    assertThat(listed.get("state").asText()).isEqualTo("DELETED");
    assertThat(listed.get("purgeRequested").asBoolean()).isTrue();
    assertThat(listed.get("deletedBy").asText()).isEqualTo("anonymous");
    long timeLeft = listed.get("retentionExpiresAt").asLong() - System.currentTimeMillis();
    assertThat(timeLeft).as("time left, ms").isBetween(23L * 3600_000, 24L * 3600_000);
    assertThat(listed.toString()).doesNotContain(metadata).doesNotContain("metadata");
    assertThat(PurgeTables.files(table.location())).isEqualTo(files);

    HttpResponse<String> undrop = api.undrop("orders");

    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);
    assertThat(SoftDeleteHttp.json(undrop).get("entityId").asText()).isEqualTo(listed.get("entityId").asText());
    Table back = catalog.loadTable(id);
    assertThat(back.uuid().toString()).isEqualTo(uuid);
    assertThat(metadataLocation(back)).isEqualTo(metadata);
    assertThat(SoftDeleteHttp.rows(back)).isEqualTo(rows);
    PurgeTables.append(back, 100, 2, "a"); // and it takes commits again
    assertThat(SoftDeleteHttp.rows(catalog.loadTable(id))).hasSize(12);
    assertThat(api.undrop("orders").statusCode()).as("replayed undrop").isEqualTo(404);
  }

  @Test
  void createOfTheHeldNameIs409NamingTheDeletionAndUndropReturnsTheOriginal() throws Exception {
    Table table = create("held");
    String uuid = table.uuid().toString();
    List<String> rows = SoftDeleteHttp.rows(table);
    String metadata = metadataLocation(table);
    create("neighbour");
    assertThat(api.drop("held", "").statusCode()).isEqualTo(204);
    JsonNode d = SoftDeleteHttp.json(api.load("held"));

    TableIdentifier id = TableIdentifier.of(NS, "held");
    assertThatThrownBy(() -> catalog.createTable(id, PurgeTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("retained (entity id");
    HttpResponse<String> raw = AsyncPurgeHttp.send(server.base(), "POST", "/iceberg/v1/main/namespaces/sd/tables",
        "{\"name\":\"held\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}", Map.of());
    assertThat(raw.statusCode()).isEqualTo(409);
    assertThat(raw.body()).contains("recoverable until " + java.time.Instant.ofEpochMilli(d.get("retentionExpiresAt").asLong()));
    HttpResponse<String> register = AsyncPurgeHttp.send(server.base(), "POST", "/iceberg/v1/main/namespaces/sd/register",
        "{\"name\":\"held\",\"metadata-location\":\"" + metadata + "\"}", Map.of());
    assertThat(register.statusCode()).isEqualTo(409);
    assertThatThrownBy(() -> catalog.renameTable(TableIdentifier.of(NS, "neighbour"), id))
        .isInstanceOf(AlreadyExistsException.class);

    assertThat(api.undrop("held").statusCode()).isEqualTo(200);

    Table back = catalog.loadTable(id);
    assertThat(back.uuid().toString()).isEqualTo(uuid);
    assertThat(SoftDeleteHttp.rows(back)).isEqualTo(rows);
    assertThat(catalog.tableExists(TableIdentifier.of(NS, "neighbour"))).isTrue();
  }

  @Test
  void badInputIsAClearErrorAndChangesNothing() throws Exception {
    Table live = create("live");
    String metadata = metadataLocation(live);
    int before = api.deleted().size();

    assertStatus(api.drop("missing", ""), 404, "NoSuchTableException");
    assertStatus(api.undrop("missing"), 404, "NoSuchTableException");
    assertStatus(api.undrop("live"), 404, "is live");
    assertStatus(api.load("live"), 404, "No retained deletion");
    assertStatus(new SoftDeleteHttp(server.base(), "nope").list(), 404, "NoSuchSchemaException");
    assertStatus(api.send("GET", "/api/metalakes/default/catalogs/nope/schemas/sd/tables?deleted=true"), 404,
        "NoSuchCatalogException");
    assertStatus(api.send("GET", "/api/metalakes/nope/catalogs/main/schemas/sd/tables?deleted=true"), 404,
        "NoSuchMetalakeException");
    assertStatus(api.send("POST", "/api/metalakes/default/catalogs/main/schemas/../tables/live/undrop"), 400,
        "relative path segment");
    assertStatus(api.send("DELETE", "/api/metalakes/default/catalogs/main/schemas/sd/tables/.."), 400,
        "relative path segment");
    assertStatus(api.send("DELETE", "/api/metalakes/default/catalogs/main/schemas/sd/tables/live/../live"), 400,
        "relative path segment");
    assertStatus(api.send("GET", "/api/metalakes/default/catalogs/main/schemas/sd/tables?deleted=false"), 400,
        "only deleted=true");
    assertStatus(api.drop("live", "?purgeRequested=perhaps"), 400, "purgeRequested");

    assertThat(api.deleted()).hasSize(before);
    assertThat(metadataLocation(catalog.loadTable(TableIdentifier.of(NS, "live")))).isEqualTo(metadata);
    assertThat(Path.of(metadata)).exists();
  }

  private static void assertStatus(HttpResponse<String> r, int status, String text) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode body = SoftDeleteHttp.json(r);
    assertThat(body.get("code").asInt()).isEqualTo(status);
    assertThat(body.toString()).contains(text);
  }
}
