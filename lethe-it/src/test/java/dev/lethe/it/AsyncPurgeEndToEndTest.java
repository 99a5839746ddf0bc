package dev.lethe.it;

import static dev.lethe.it.AsyncPurgeHttp.cleanups;
import static dev.lethe.it.AsyncPurgeHttp.drop;
import static dev.lethe.it.AsyncPurgeHttp.send;
import static dev.lethe.it.AsyncPurgeHttp.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous purge end to end: a real server process (embedded H2), iceberg-java's
 * RESTCatalog writing real Parquet tables, raw HTTP drops with the async header, and the files on
 * disk checked after the worker ran.
 */
class AsyncPurgeEndToEndTest {
  private static final Namespace NS = Namespace.of("ap");
  private static final PartitionSpec BY_CATEGORY = PartitionSpec.builderFor(PurgeTables.SCHEMA).identity("category").build();
  private static Path dataDir;
  private static PurgeServer server;
  private static RESTCatalog catalog;

  @BeforeAll
  static void start() throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    dataDir = Files.createTempDirectory(work, "async-purge-");
    server = PurgeServer.start(dataDir, AsyncPurgeHttp.configArgs(dataDir, Map.of(
        "lethe.iceberg-rest.async-purge.poll-interval-ms", "100")));
    catalog = AsyncPurgeHttp.client(server.icebergUri(), "main");
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
  }

  private static Table create(String name, PartitionSpec spec, Map<String, String> props) {
    return catalog.buildTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA).withPartitionSpec(spec)
        .withProperties(props).create();
  }

  private static void awaitSucceeded(String name) throws InterruptedException {
    AsyncPurgeHttp.await("job of " + name + " to succeed", Duration.ofSeconds(120),
        () -> "SUCCEEDED".equals(state(server.base(), "main", name)));
  }

  @Test
  void asyncDropOfATenThousandFileTableAnswers204QuicklyWithOneJobAndTheWorkerEmptiesTheLocation() throws Exception {
    Table warm = create("warmup", PartitionSpec.unpartitioned(), Map.of());
    PurgeTables.append(warm, 0, 3, "x");
    assertThat(drop(server.base(), "main", "ap", "warmup", true).statusCode()).isEqualTo(204);

    Table table = create("big", PartitionSpec.unpartitioned(), Map.of());
    PurgeTables.appendCopies(table, 10_000, 4);
    String location = table.location();
    assertThat(PurgeTables.files(location).stream().filter(p -> p.toString().endsWith(".parquet"))).hasSize(10_000);

    long start = System.nanoTime();
    HttpResponse<String> r = drop(server.base(), "main", "ap", "big", true);
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;

    assertThat(r.statusCode()).isEqualTo(204);
    System.out.println("async DELETE of a 10,000-data-file table answered 204 in " + elapsedMs + " ms");
    assertThat(elapsedMs).as("204 latency, ms").isLessThan(500);
    assertThat(cleanups(server.base(), "main", "?name=big")).hasSize(1);
    awaitSucceeded("big");
    assertThat(PurgeTables.files(location)).isEmpty();
  }

  @Test
  void repeatedDropIs404AndEnqueuesNoSecondJob() throws Exception {
    Table table = create("twice", BY_CATEGORY, Map.of());
    PurgeTables.append(table, 0, 3, "a");

    assertThat(drop(server.base(), "main", "ap", "twice", true).statusCode()).isEqualTo(204);
    assertThat(drop(server.base(), "main", "ap", "twice", true).statusCode()).isEqualTo(404);
    assertThat(drop(server.base(), "main", "ap", "twice", null).statusCode()).isEqualTo(404);
    assertThat(catalog.tableExists(TableIdentifier.of(NS, "twice"))).isFalse();

    awaitSucceeded("twice");
    assertThat(cleanups(server.base(), "main", "?name=twice")).hasSize(1);
  }

  @Test
  void mergeOnReadTableWithPositionDeletesAndStatisticsLeavesNothingBehind() throws Exception {
    Table table = create("mor", BY_CATEGORY, Map.of(TableProperties.FORMAT_VERSION, "2",
        TableProperties.DELETE_MODE, "merge-on-read", TableProperties.UPDATE_MODE, "merge-on-read"));
    PurgeTables.enrich(table);
    table.refresh();
    assertThat(((BaseTable) table).operations().current().statisticsFiles()).hasSize(1);
    assertThat(((BaseTable) table).operations().current().partitionStatisticsFiles()).hasSize(1);
    assertThat(table.currentSnapshot().summary()).containsEntry("total-position-deletes", "1");
    String location = table.location();

    assertThat(drop(server.base(), "main", "ap", "mor", true).statusCode()).isEqualTo(204);

    awaitSucceeded("mor");
    assertThat(PurgeTables.files(location)).isEmpty();
  }

  @Test
  void gcDisabledKeepsDataFilesOnTheAsyncPathAsOnTheSynchronousOne() throws Exception {
    Table table = create("nogc", BY_CATEGORY, Map.of(TableProperties.GC_ENABLED, "false"));
    PurgeTables.append(table, 0, 3, "a");
    PurgeTables.append(table, 10, 3, "b");
    String location = table.location();
    Set<Path> dataFiles = new java.util.TreeSet<>(PurgeTables.files(location + "/data"));
    assertThat(dataFiles).hasSize(2);

    assertThat(drop(server.base(), "main", "ap", "nogc", true).statusCode()).isEqualTo(204);

    awaitSucceeded("nogc");
    assertThat(PurgeTables.files(location)).isEqualTo(dataFiles);
  }

  @Test
  void absentHeaderPurgesSynchronouslyAsADurableJobThatHasEndedWhenTheDropAnswers() throws Exception {
    Table table = create("sync", BY_CATEGORY, Map.of());
    PurgeTables.append(table, 0, 3, "a");
    String location = table.location();

    assertThat(drop(server.base(), "main", "ap", "sync", null).statusCode()).isEqualTo(204);

    // the synchronous purge is the same durable job, already SUCCEEDED when the DELETE answers
    // (docs/design/0051-synchronous-purge-is-a-durable-job.md)
    assertThat(PurgeTables.files(location)).isEmpty();
    assertThat(cleanups(server.base(), "main", "?name=sync")).singleElement()
        .satisfies(job -> assertThat(job.get("state").asText()).isEqualTo("SUCCEEDED"));
  }

  @Test
  void namesAreRefused409WhilePendingAndFreeAfterSucceededOrFailed() throws Exception {
    Path dir = Files.createTempDirectory(dataDir.getParent(), "async-purge-409-");
    String okMetadata;
    String failMetadata;
    try (PurgeServer enqueueOnly = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, Map.of(
        "lethe.iceberg-rest.async-purge.worker-threads", "0")));
        RESTCatalog c = AsyncPurgeHttp.client(enqueueOnly.icebergUri(), "main")) {
      c.createNamespace(NS);
      Table ok = c.buildTable(TableIdentifier.of(NS, "ok"), PurgeTables.SCHEMA).create();
      PurgeTables.append(ok, 0, 3, "a");
      Table bad = c.buildTable(TableIdentifier.of(NS, "bad"), PurgeTables.SCHEMA).create();
      PurgeTables.append(bad, 0, 3, "a");
      c.buildTable(TableIdentifier.of(NS, "other"), PurgeTables.SCHEMA).create();
      okMetadata = ((BaseTable) ok).operations().current().metadataFileLocation();
      failMetadata = ((BaseTable) bad).operations().current().metadataFileLocation();
      String base = enqueueOnly.base();
      assertThat(drop(base, "main", "ap", "ok", true).statusCode()).isEqualTo(204);
      assertThat(drop(base, "main", "ap", "bad", true).statusCode()).isEqualTo(204);
      Files.writeString(Path.of(failMetadata), "{ not metadata");
      long okJob = cleanups(base, "main", "?name=ok").get(0).get("id").asLong();

      for (String name : new String[] {"ok", "bad"}) {
        HttpResponse<String> create = send(base, "POST", "/iceberg/v1/main/namespaces/ap/tables",
            "{\"name\":\"" + name + "\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}", Map.of());
        assertThat(create.statusCode()).as(create.body()).isEqualTo(409);
        assertThat(create.body()).contains("cleanup job");
        assertThat(send(base, "GET", "/iceberg/v1/main/namespaces/ap/tables/" + name, null, Map.of()).statusCode()).isEqualTo(404);
        assertThat(send(base, "HEAD", "/iceberg/v1/main/namespaces/ap/tables/" + name, null, Map.of()).statusCode()).isEqualTo(404);
      }
      HttpResponse<String> register = send(base, "POST", "/iceberg/v1/main/namespaces/ap/register",
          "{\"name\":\"ok\",\"metadata-location\":\"" + okMetadata + "\"}", Map.of());
      assertThat(register.statusCode()).isEqualTo(409);
      assertThat(register.body()).contains("cleanup job " + okJob);
      HttpResponse<String> rename = send(base, "POST", "/iceberg/v1/main/tables/rename",
          "{\"source\":{\"namespace\":[\"ap\"],\"name\":\"other\"},\"destination\":{\"namespace\":[\"ap\"],\"name\":\"ok\"}}", Map.of());
      assertThat(rename.statusCode()).isEqualTo(409);
      assertThat(Path.of(okMetadata)).exists();
    }

    try (PurgeServer worker = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, Map.of(
        "lethe.iceberg-rest.async-purge.poll-interval-ms", "100")));
        RESTCatalog c = AsyncPurgeHttp.client(worker.icebergUri(), "main")) {
      AsyncPurgeHttp.await("both jobs to end", Duration.ofSeconds(60),
          () -> "SUCCEEDED".equals(state(worker.base(), "main", "ok")) && "FAILED".equals(state(worker.base(), "main", "bad")));
      assertThat(cleanups(worker.base(), "main", "?name=bad").get(0).get("lastError").asText()).contains("cannot parse metadata file");
      assertThat(Path.of(okMetadata)).doesNotExist();

      c.buildTable(TableIdentifier.of(NS, "bad"), PurgeTables.SCHEMA).create();
      c.renameTable(TableIdentifier.of(NS, "other"), TableIdentifier.of(NS, "ok"));
      assertThat(c.tableExists(TableIdentifier.of(NS, "ok"))).isTrue();
    }
  }
}
