package dev.lethe.it;

import static dev.lethe.it.AsyncPurgeHttp.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The soft deletion journeys that need time to pass, over HTTP against real server processes
 * (embedded H2) restarted with other settings on the same data directory: the deadline passing
 * (410, then the expiry purge deletes the files or keeps them when purge was not requested), a
 * table restored and dropped again, retention 0, the flag turned off with retained records, and
 * malformed retention values at start-up.
 */
class SoftDeleteExpiryEndToEndTest {
  private static final Namespace NS = Namespace.of("sx");
  private static final PartitionSpec BY_CATEGORY = PartitionSpec.builderFor(PurgeTables.SCHEMA).identity("category").build();
  /** An expiry interval that never fires within a test: only the tick at start-up runs. */
  private static final String NEVER = "86400000";

  private Path dataDir;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void dataDir() throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    dataDir = Files.createTempDirectory(work, "soft-expiry-");
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private PurgeServer server(Map<String, String> keys) throws Exception {
    Map<String, String> all = new HashMap<>(keys);
    all.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "100");
    PurgeServer s = PurgeServer.start(dataDir, AsyncPurgeHttp.configArgs(dataDir, all));
    open.add(0, s);
    return s;
  }

  private RESTCatalog client(PurgeServer s) {
    RESTCatalog c = AsyncPurgeHttp.client(s.icebergUri(), "main");
    open.add(0, c);
    return c;
  }

  private static Table create(RESTCatalog c, String name) {
    Table t = c.buildTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA).withPartitionSpec(BY_CATEGORY).create();
    PurgeTables.append(t, 0, 4, "a");
    PurgeTables.append(t, 10, 4, "b");
    return c.loadTable(TableIdentifier.of(NS, name));
  }

  private static void awaitDeadline(JsonNode deleted) {
    long past = deleted.get("retentionExpiresAt").asLong() + 100;
    Awaitility.await("the retention deadline to pass").atMost(Duration.ofMillis(Math.max(0, past - System.currentTimeMillis())).plusSeconds(10))
        .pollInterval(Duration.ofMillis(10)).until(() -> System.currentTimeMillis() >= past);
  }

  private static JsonNode cleanupsOf(PurgeServer s, String name) throws Exception {
    return AsyncPurgeHttp.cleanups(s.base(), "main", "?name=" + name);
  }

  @Test
  void deadlinePassesUndropIs410ThenTheExpiryPurgeDeletesOrKeepsTheFilesAndFreesTheNames() throws Exception {
    String purgedLocation;
    String keptLocation;
    Set<Path> keptFiles;
    try (PurgeServer first = server(Map.of("lethe.entity.soft-delete.enabled", "true",
        "lethe.entity.soft-delete.retention-ms", "1500", "lethe.entity.soft-delete.expiry-interval-ms", NEVER))) {
      RESTCatalog c = client(first);
      c.createNamespace(NS);
      purgedLocation = create(c, "purged").location();
      Table kept = create(c, "kept");
      keptLocation = kept.location();
      keptFiles = PurgeTables.files(keptLocation);
      SoftDeleteHttp api = new SoftDeleteHttp(first.base(), "sx");
      assertThat(api.icebergDrop("sx", "purged", true).statusCode()).isEqualTo(204);
      assertThat(api.icebergDrop("sx", "kept", false).statusCode()).isEqualTo(204);
      awaitDeadline(SoftDeleteHttp.json(api.load("kept")));

      for (String name : List.of("purged", "kept")) {
        HttpResponse<String> undrop = api.undrop(name);
        assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(410);
        assertThat(undrop.body()).contains("deadline passed");
        JsonNode d = SoftDeleteHttp.json(api.load(name));
        assertThat(d.get("recoverable").asBoolean()).isFalse();
        assertThat(d.get("state").asText()).isEqualTo("DELETED");
      }
      assertThat(PurgeTables.files(purgedLocation)).as("nothing is deleted before the expiry purge").isNotEmpty();
    }

    PurgeServer second = server(Map.of("lethe.entity.soft-delete.enabled", "true",
        "lethe.entity.soft-delete.expiry-interval-ms", "200"));
    SoftDeleteHttp api = new SoftDeleteHttp(second.base(), "sx");
    await("both deletions to be purged", Duration.ofSeconds(90), () -> !api.retained("purged") && !api.retained("kept"));

    assertThat(PurgeTables.files(purgedLocation)).as("every file of the purged table").isEmpty();
    assertThat(PurgeTables.files(keptLocation)).as("purgeRequested=false keeps every file").isEqualTo(keptFiles);
    JsonNode jobs = cleanupsOf(second, "purged");
    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(cleanupsOf(second, "kept")).isEmpty();
    assertThat(api.undrop("purged").statusCode()).as("after purge").isEqualTo(404);
    assertThat(api.send("GET", "/iceberg/v1/main/namespaces/sx/tables/purged").statusCode()).isEqualTo(404);
    assertThat(api.deleted()).isEmpty();
    RESTCatalog c = client(second);
    c.createTable(TableIdentifier.of(NS, "purged"), PurgeTables.SCHEMA);
    c.createTable(TableIdentifier.of(NS, "kept"), PurgeTables.SCHEMA);
  }

  @Test
  void aTableRestoredAndDroppedAgainIsPurgedAsTheSecondDropAskedNeverByTheFirst() throws Exception {
    PurgeServer s = server(Map.of("lethe.entity.soft-delete.enabled", "true",
        "lethe.entity.soft-delete.retention-ms", "5000", "lethe.entity.soft-delete.expiry-interval-ms", "200"));
    RESTCatalog c = client(s);
    c.createNamespace(NS);
    Table t = create(c, "twice");
    String metadata = ((BaseTable) t).operations().current().metadataFileLocation();
    List<String> rows = SoftDeleteHttp.rows(t);
    Set<Path> files = PurgeTables.files(t.location());
    SoftDeleteHttp api = new SoftDeleteHttp(s.base(), "sx");

    assertThat(api.icebergDrop("sx", "twice", true).statusCode()).isEqualTo(204); // generation 1 asks for a purge
    String firstEntity = SoftDeleteHttp.json(api.load("twice")).get("entityId").asText();
    assertThat(api.undrop("twice").statusCode()).isEqualTo(200);
    assertThat(api.drop("twice", "?purgeRequested=false").statusCode()).isEqualTo(204); // generation 2 does not
    JsonNode second = SoftDeleteHttp.json(api.load("twice"));
    assertThat(second.get("entityId").asText()).isEqualTo(firstEntity);
    assertThat(second.get("purgeRequested").asBoolean()).isFalse();

    await("generation 2 to expire", Duration.ofSeconds(60), () -> !api.retained("twice"));

    assertThat(PurgeTables.files(t.location())).isEqualTo(files);
    assertThat(cleanupsOf(s, "twice")).as("no cleanup job for any generation").isEmpty();
    Table again = c.registerTable(TableIdentifier.of(NS, "twice"), metadata);
    assertThat(SoftDeleteHttp.rows(again)).isEqualTo(rows);
  }

  @Test
  void retentionZeroIsExpiredAtOnceAndUndropIs410() throws Exception {
    PurgeServer s = server(Map.of("lethe.entity.soft-delete.enabled", "true",
        "lethe.entity.soft-delete.retention-ms", "0", "lethe.entity.soft-delete.expiry-interval-ms", NEVER));
    RESTCatalog c = client(s);
    c.createNamespace(NS);
    create(c, "zero");
    SoftDeleteHttp api = new SoftDeleteHttp(s.base(), "sx");

    assertThat(api.icebergDrop("sx", "zero", true).statusCode()).isEqualTo(204);

    JsonNode d = SoftDeleteHttp.json(api.load("zero"));
    assertThat(d.get("retentionExpiresAt").asLong()).isEqualTo(d.get("deletedAt").asLong());
    assertThat(d.get("recoverable").asBoolean()).isFalse();
    HttpResponse<String> undrop = api.undrop("zero");
    assertThat(undrop.statusCode()).isEqualTo(410);
    assertThat(SoftDeleteHttp.json(undrop).get("type").asText()).isEqualTo("TableNotRecoverableException");
    assertThat(api.load("zero").statusCode()).as("the 410 changed nothing").isEqualTo(200);
  }

  @Test
  void withTheFlagTurnedOffRetainedRecordsStillListRestoreAndExpireAndNewDropsAreHard() throws Exception {
    String expiringLocation;
    try (PurgeServer on = server(Map.of("lethe.entity.soft-delete.enabled", "true"))) {
      RESTCatalog c = client(on);
      c.createNamespace(NS);
      create(c, "restorable");
      SoftDeleteHttp api = new SoftDeleteHttp(on.base(), "sx");
      assertThat(api.icebergDrop("sx", "restorable", true).statusCode()).isEqualTo(204);
    }
    try (PurgeServer shortWindow = server(Map.of("lethe.entity.soft-delete.enabled", "true",
        "lethe.entity.soft-delete.retention-ms", "1000", "lethe.entity.soft-delete.expiry-interval-ms", NEVER))) {
      RESTCatalog c = client(shortWindow);
      expiringLocation = create(c, "expiring").location();
      create(c, "hard");
      SoftDeleteHttp api = new SoftDeleteHttp(shortWindow.base(), "sx");
      assertThat(api.icebergDrop("sx", "expiring", true).statusCode()).isEqualTo(204);
      awaitDeadline(SoftDeleteHttp.json(api.load("expiring")));
    }

    PurgeServer off = server(Map.of("lethe.entity.soft-delete.enabled", "false",
        "lethe.entity.soft-delete.expiry-interval-ms", "200"));
    SoftDeleteHttp api = new SoftDeleteHttp(off.base(), "sx");
    RESTCatalog c = client(off);
    JsonNode restorable = SoftDeleteHttp.json(api.load("restorable"));
    assertThat(restorable.get("recoverable").asBoolean()).isTrue();
    assertThat(api.undrop("restorable").statusCode()).isEqualTo(200);
    assertThat(c.tableExists(TableIdentifier.of(NS, "restorable"))).isTrue();
    await("the expired record to be purged with the flag off", Duration.ofSeconds(90), () -> !api.retained("expiring"));
    assertThat(PurgeTables.files(expiringLocation)).isEmpty();
    assertThat(cleanupsOf(off, "expiring").get(0).get("state").asText()).isEqualTo("SUCCEEDED");

    Table hard = c.loadTable(TableIdentifier.of(NS, "hard"));
    Set<Path> hardFiles = PurgeTables.files(hard.location());
    assertThat(api.icebergDrop("sx", "hard", false).statusCode()).isEqualTo(204);
    assertThat(api.load("hard").statusCode()).as("flag off: no deletion record").isEqualTo(404);
    assertThat(PurgeTables.files(hard.location())).isEqualTo(hardFiles);
    c.createTable(TableIdentifier.of(NS, "hard"), PurgeTables.SCHEMA); // the name is free at once
    assertThat(api.deleted()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "7776000001", "24h", "1e3", ""})
  void malformedRetentionStopsStartUpWithExit2NamingTheKey(String value) throws Exception {
    Path config = dataDir.resolve("bad.properties");
    Files.writeString(config, "lethe.entity.soft-delete.retention-ms=" + value + "\n");
    assertExit2NamingTheRetentionKey(List.of("--config", config.toString()), Map.of());
  }

  @Test
  void malformedRetentionFromTheEnvironmentStopsStartUpToo() throws Exception {
    assertExit2NamingTheRetentionKey(List.of(), Map.of("LETHE_ENTITY_SOFT_DELETE_RETENTION_MS", "ninety days"));
  }

  private void assertExit2NamingTheRetentionKey(List<String> args, Map<String, String> env) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        System.getProperty("lethe.it.jar"), "server", "--port", "0", "--data-dir", dataDir.resolve("never").toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isEqualTo(2);
    assertThat(out.strip().lines().filter(l -> l.startsWith("lethe server:")).toList())
        .singleElement().asString().contains("Invalid lethe.entity.soft-delete.retention-ms");
    assertThat(new File(dataDir.resolve("never").resolve("catalog.mv.db").toString())).as("nothing stored").doesNotExist();
  }
}
