package dev.lethe.server.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code GET …/catalogs/{c}/summary} (docs/design/0450-catalog-summary.md) against the listings it
 * sums up, on a real server over real HTTP with auth on. A seeded randomized oracle
 * ({@code -Dlethe.test.summary.seed=N}, printed) builds nested namespaces and iceberg-java tables,
 * soft-drops them, purges some now (a worker ends them {@code SUCCEEDED}, or {@code FAILED} when a
 * manifest is gone), abandons, retries, leaves pending and rescues jobs, places holds (some released,
 * some past their end) and protections; then every figure must equal what the cleanup, retained-table,
 * hold and protection listings say, the holds counted as those in force at the summary's {@code now},
 * and {@code lastError} as the listing redacts it for a reader.
 */
class SummaryRoutesTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer admin-token");
  private static final Map<String, String> READER = Map.of("Authorization", "Bearer reader-token");
  private static final Map<String, String> STRANGER = Map.of("Authorization", "Bearer stranger-token");
  private static final String API = "/api/metalakes/default/catalogs/main";
  private static final List<String> STATES = List.of("PENDING", "RUNNING", "SUCCEEDED", "FAILED", "ABANDONED", "CANCELLED");

  /** What the oracle does to a table. */
  enum Fate { LIVE, RETAINED, SUCCEEDED, FAILED, ABANDONED, RETRIED, PENDING, CANCELLED }

  @TempDir Path dir;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private LetheServer server;
  private ServerHttp http;
  private RESTCatalog client;

  @AfterEach
  void stop() throws Exception {
    closeServer();
    databases.close();
  }

  private void closeServer() throws Exception {
    if (client != null) {
      client.close();
      client = null;
    }
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private void start(String jdbcUrl, int workers) throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token") + "\n    read: [main]\n"
        + "  - name: stranger\n    token-sha256: " + ContentHash.ofUtf8("stranger-token") + "\n    read: [other]\n");
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.SOFT_DELETE_ENABLED, "true");
    props.put(ConfigKeys.SOFT_DELETE_RETENTION_MS, "86400000");
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, Integer.toString(workers));
    props.put(ConfigKeys.ASYNC_PURGE_POLL_INTERVAL_MS, "50");
    props.put(ConfigKeys.ASYNC_PURGE_MAX_ATTEMPTS, "1");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), jdbcUrl, null, null, 8,
        dir.resolve("warehouse").toString(), ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, props));
    http = new ServerHttp(server);
    client = new RESTCatalog();
    client.initialize("lethe", Map.of("uri", "http://127.0.0.1:" + server.port() + "/iceberg", "warehouse", "main",
        "token", "admin-token"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theSummaryAgreesWithTheListings(String backend) throws Exception {
    long seed = Long.getLong("lethe.test.summary.seed", System.nanoTime());
    System.out.println("SummaryRoutesTest seed " + seed + " (" + backend + "): -Dlethe.test.summary.seed=" + seed);
    Random random = new Random(seed);
    String jdbcUrl = databases.create(backend, dir);

    // phase 1: one purge worker; purged tables end SUCCEEDED, or FAILED when a manifest is gone
    start(jdbcUrl, 1);
    List<Namespace> namespaces = new ArrayList<>();
    for (String[] levels : new String[][] {{"a"}, {"a", "b"}, {"a", "b", "c"}, {"x"}, {"x", "y"}, {"a", "b2"}}) {
      Namespace ns = Namespace.of(levels);
      client.createNamespace(ns);
      namespaces.add(ns);
    }
    // every fate at least once, the first retained table in a nested namespace; then random ones
    List<Fate> fates = new ArrayList<>(List.of(Fate.values()));
    for (int i = 0, more = 4 + random.nextInt(8); i < more; i++) {
      fates.add(Fate.values()[random.nextInt(Fate.values().length)]);
    }
    Collections.shuffle(fates, random);
    Map<String, TableIdentifier> tables = new LinkedHashMap<>();
    Map<String, Fate> fateOf = new LinkedHashMap<>();
    boolean nestedRetained = false;
    for (int i = 0; i < fates.size(); i++) {
      Fate fate = fates.get(i);
      Namespace ns = namespaces.get(random.nextInt(namespaces.size()));
      if (fate == Fate.RETAINED && !nestedRetained) {
        ns = Namespace.of("a", "b", "c");
        nestedRetained = true;
      }
      String name = "t" + i;
      TableIdentifier id = TableIdentifier.of(ns, name);
      Table table = client.buildTable(id, SCHEMA).withPartitionSpec(PartitionSpec.unpartitioned()).create();
      if (Set.of(Fate.FAILED, Fate.ABANDONED, Fate.RETRIED).contains(fate)) {
        DataFile data = DataFiles.builder(table.spec()).withPath(table.location() + "/data/a.parquet")
            .withFormat(FileFormat.PARQUET).withFileSizeInBytes(10).withRecordCount(1).build();
        table.newAppend().appendFile(data).commit();
        table.refresh();
        Files.delete(path(table.currentSnapshot().allManifests(table.io()).get(0).path()));
      }
      tables.put(name, id);
      fateOf.put(name, fate);
    }
    for (Map.Entry<String, Fate> e : fateOf.entrySet()) {
      if (Set.of(Fate.SUCCEEDED, Fate.FAILED, Fate.ABANDONED, Fate.RETRIED).contains(e.getValue())) {
        softDrop(tables.get(e.getKey()), true);
        purgeNow(tables.get(e.getKey()));
      }
    }
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> jobs(ADMIN).stream().allMatch(j -> Set.of("SUCCEEDED", "FAILED").contains(j.get("state").asText())));
    Map<String, Long> jobOf = new HashMap<>();
    for (JsonNode j : jobs(ADMIN)) {
      jobOf.put(j.get("name").asText(), j.get("id").asLong());
    }
    for (Map.Entry<String, Fate> e : fateOf.entrySet()) {
      if (e.getValue() == Fate.ABANDONED) {
        expect(200, "POST", API + "/cleanups/" + jobOf.get(e.getKey()) + "/abandon", "{\"reason\":\"files gone\"}");
      }
    }
    closeServer();

    // phase 2: no worker, so a job stays where it is put
    start(jdbcUrl, 0);
    for (Map.Entry<String, Fate> e : fateOf.entrySet()) {
      TableIdentifier id = tables.get(e.getKey());
      switch (e.getValue()) {
        case RETRIED -> expect(200, "POST", API + "/cleanups/" + jobOf.get(e.getKey()) + "/retry", null);
        case RETAINED -> softDrop(id, random.nextBoolean());
        case PENDING -> {
          softDrop(id, true);
          purgeNow(id);
        }
        case CANCELLED -> {
          softDrop(id, true);
          long job = purgeNow(id);
          expect(200, "POST", API + "/cleanups/" + job + "/rescue", "{}");
        }
        default -> { }
      }
    }
    // holds: in force, released, past their end, ending far ahead
    long soonest = 0;
    List<String> targets = new ArrayList<>();
    for (Namespace ns : namespaces) {
      targets.add("{\"kind\":\"namespace\",\"namespace\":" + levels(ns));
    }
    for (TableIdentifier id : tables.values()) {
      targets.add("{\"kind\":\"table\",\"namespace\":" + levels(id.namespace()) + ",\"name\":\"" + id.name() + "\"");
    }
    Collections.shuffle(targets, random);
    int holdCount = 4 + random.nextInt(6);
    for (int i = 0; i < holdCount && i < targets.size(); i++) {
      String target = targets.get(i);
      int kind = i < 3 ? i : random.nextInt(4); // 0 in force, 1 released, 2 past its end, 3 ends far ahead
      long now = summary(ADMIN).get("now").asLong();
      String expires = switch (kind) {
        case 2 -> ",\"expiresAt\":" + (now + 1500);
        case 3 -> ",\"expiresAt\":" + (now + 86_400_000L);
        default -> "";
      };
      expect(200, "PUT", API + "/holds", target + ",\"reason\":\"case " + i + "\"" + expires + "}");
      if (kind == 2) {
        soonest = Math.max(soonest, now + 1500);
      }
      if (kind == 1) {
        JsonNode t = ServerHttp.JSON.readTree(target + "}");
        String query = "kind=" + t.get("kind").asText() + "&namespace=" + URLEncoder.encode(t.get("namespace").toString(),
            StandardCharsets.UTF_8) + (t.has("name") ? "&name=" + t.get("name").asText() : "");
        expect(200, "DELETE", API + "/holds?" + query, null);
      }
    }
    // protections on other targets
    for (int i = holdCount, n = holdCount + 1 + random.nextInt(4); i < n && i < targets.size(); i++) {
      expect(200, "PUT", API + "/protections", targets.get(i) + ",\"reason\":\"audited\"}");
    }
    long until = soonest;
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> summary(ADMIN).get("now").asLong() > until);

    for (Map<String, String> caller : List.of(ADMIN, READER)) {
      JsonNode s = summary(caller);
      long now = s.get("now").asLong();
      List<JsonNode> jobs = jobs(caller);
      assertThat(s.get("catalog").asText()).isEqualTo("main");
      Map<String, Long> counts = new LinkedHashMap<>();
      STATES.forEach(st -> counts.put(st, 0L));
      jobs.forEach(j -> counts.merge(j.get("state").asText(), 1L, Long::sum));
      Map<String, Long> summed = new LinkedHashMap<>();
      s.get("jobs").fields().forEachRemaining(e -> summed.put(e.getKey(), e.getValue().asLong()));
      assertThat(summed).as("seed %d: jobs per state", seed).containsExactlyInAnyOrderEntriesOf(counts);
      Long oldest = jobs.stream().filter(j -> j.get("state").asText().equals("PENDING"))
          .map(j -> j.get("createdAt").asLong()).min(Long::compare).orElse(null);
      assertThat(s.get("oldestPendingCreatedAt").isNull() ? null : s.get("oldestPendingCreatedAt").asLong())
          .as("seed %d: oldest pending", seed).isEqualTo(oldest);
      List<JsonNode> failed = jobs.stream().filter(j -> j.get("state").asText().equals("FAILED")).limit(5).toList();
      assertThat(s.get("failed")).as("seed %d: failed", seed).hasSize(failed.size());
      for (int i = 0; i < failed.size(); i++) {
        JsonNode f = s.get("failed").get(i);
        assertThat(f.size()).isEqualTo(5);
        for (String field : List.of("id", "objectType", "namespace", "name", "lastError")) {
          assertThat(f.get(field)).as("seed %d: failed[%d].%s", seed, i, field).isEqualTo(failed.get(i).get(field));
        }
        if (caller == READER) {
          assertThat(f.get("lastError").asText()).doesNotContain(dir.toString()).contains(LastErrorRedaction.TABLE);
        } else {
          assertThat(f.get("lastError").asText()).contains(dir.toString());
        }
      }
      // every namespace, nested ones included, and its retained tables
      List<JsonNode> retained = new ArrayList<>();
      for (List<String> ns : allNamespaces(caller, null)) {
        HttpResponse<String> r = expect(200, "GET", API + "/schemas/" + enc(String.join("\u001f", ns))
            + "/tables?deleted=true", null, caller);
        ServerHttp.JSON.readTree(r.body()).get("deleted").forEach(retained::add);
      }
      assertThat(s.get("retainedTables").asLong()).as("seed %d: retained tables", seed).isEqualTo(retained.size());
      Long nearest = retained.stream().map(t -> t.get("retentionExpiresAt").asLong()).min(Long::compare).orElse(null);
      assertThat(s.get("nearestDeadline").isNull() ? null : s.get("nearestDeadline").asLong())
          .as("seed %d: nearest deadline", seed).isEqualTo(nearest);
      // the listing shows holds not released, past their end or not; the summary those in force now
      JsonNode holds = ServerHttp.JSON.readTree(expect(200, "GET", API + "/holds", null, caller).body()).get("holds");
      long inForce = 0;
      long pastTheirEnd = 0;
      for (JsonNode h : holds) {
        boolean ended = !h.get("expiresAt").isNull() && h.get("expiresAt").asLong() <= now;
        inForce += h.get("releasedAt").isNull() && !ended ? 1 : 0;
        pastTheirEnd += ended ? 1 : 0;
      }
      assertThat(pastTheirEnd).as("seed %d: the oracle made a hold past its end", seed).isPositive();
      assertThat(s.get("holds").asLong()).as("seed %d: holds in force", seed).isEqualTo(inForce);
      JsonNode protections = ServerHttp.JSON.readTree(expect(200, "GET", API + "/protections", null, caller).body())
          .get("protections");
      assertThat(s.get("protections").asLong()).as("seed %d: protections", seed).isEqualTo(protections.size());
    }
  }

  @Test
  void whoMayReadTheSummary() throws Exception {
    start(databases.create("h2", dir), 0);
    // same answers as the cleanup listing, the sibling that needs the same grant
    for (String suffix : List.of("/summary", "/cleanups")) {
      String path = API + suffix;
      assertThat(http.send("GET", path, null, Map.of()).statusCode()).as(suffix + " no token").isEqualTo(401);
      assertThat(http.send("GET", path, null, Map.of("Authorization", "Bearer nope")).statusCode()).as(suffix + " bad token")
          .isEqualTo(401);
      assertThat(http.send("GET", path, null, STRANGER).statusCode()).as(suffix + " another catalog's reader")
          .isEqualTo(403);
      assertThat(http.send("GET", path.replace("/catalogs/main/", "/catalogs/nope/"), null, ADMIN).statusCode())
          .as(suffix + " unknown catalog").isEqualTo(404);
      assertThat(http.send("GET", path.replace("/metalakes/default/", "/metalakes/nope/"), null, ADMIN).statusCode())
          .as(suffix + " unknown metalake").isEqualTo(404);
    }
    HttpResponse<String> refused = http.send("GET", API + "/summary", null, STRANGER);
    assertThat(ServerHttp.JSON.readTree(refused.body()).get("code").asInt()).isEqualTo(403);
    HttpResponse<String> head = http.send("HEAD", API + "/summary", null, READER);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(http.send("HEAD", API + "/summary", null, Map.of()).statusCode()).isEqualTo(401);
    // an empty catalog
    JsonNode s = summary(READER);
    assertThat(s.get("jobs").size()).isEqualTo(6);
    s.get("jobs").forEach(n -> assertThat(n.asLong()).isZero());
    assertThat(s.get("oldestPendingCreatedAt").isNull()).isTrue();
    assertThat(s.get("failed")).isEmpty();
    assertThat(s.get("retainedTables").asLong()).isZero();
    assertThat(s.get("nearestDeadline").isNull()).isTrue();
    assertThat(s.get("holds").asLong()).isZero();
    assertThat(s.get("protections").asLong()).isZero();
    assertThat(s.get("now").asLong()).isPositive();
  }

  private JsonNode summary(Map<String, String> caller) throws Exception {
    return ServerHttp.JSON.readTree(expect(200, "GET", API + "/summary", null, caller).body());
  }

  /** Every job, newest first, page by page. */
  private List<JsonNode> jobs(Map<String, String> caller) throws Exception {
    List<JsonNode> all = new ArrayList<>();
    String token = null;
    do {
      JsonNode page = ServerHttp.JSON.readTree(expect(200, "GET", API + "/cleanups?limit=7"
          + (token == null ? "" : "&pageToken=" + enc(token)), null, caller).body());
      page.get("cleanups").forEach(all::add);
      token = page.get("nextPageToken").isNull() ? null : page.get("nextPageToken").asText();
    } while (token != null);
    return all;
  }

  /** The namespaces under {@code parent} (null: the top level) and below, through the Iceberg REST listing. */
  private List<List<String>> allNamespaces(Map<String, String> caller, List<String> parent) throws Exception {
    List<List<String>> out = new ArrayList<>();
    JsonNode answer = ServerHttp.JSON.readTree(expect(200, "GET", "/iceberg/v1/main/namespaces"
        + (parent == null ? "" : "?parent=" + enc(String.join("\u001f", parent))), null, caller).body());
    for (JsonNode ns : answer.get("namespaces")) {
      List<String> levels = new ArrayList<>();
      ns.forEach(l -> levels.add(l.asText()));
      out.add(levels);
      out.addAll(allNamespaces(caller, levels));
    }
    assertThat(answer.path("next-page-token").isMissingNode() || answer.get("next-page-token").isNull()).isTrue();
    return out;
  }

  /** A soft drop; {@code purgeRequested} so that a purge now deletes the files. */
  private void softDrop(TableIdentifier id, boolean purgeRequested) throws Exception {
    expect(204, "DELETE", "/iceberg/v1/main/namespaces/" + enc(String.join("\u001f", id.namespace().levels())) + "/tables/"
        + id.name() + "?purgeRequested=" + purgeRequested, null);
  }

  /** Purges a retained table now; returns its job's id. */
  private long purgeNow(TableIdentifier id) throws Exception {
    HttpResponse<String> r = expect(202, "POST", API + "/schemas/" + enc(String.join("\u001f", id.namespace().levels()))
        + "/tables/" + id.name() + "/purge", null);
    assertThat(ServerHttp.JSON.readTree(r.body()).get("state").asText()).isEqualTo("PURGING");
    JsonNode listed = ServerHttp.JSON.readTree(expect(200, "GET", API + "/cleanups?name=" + id.name(), null).body())
        .get("cleanups");
    assertThat(listed).hasSize(1);
    return listed.get(0).get("id").asLong();
  }

  private HttpResponse<String> expect(int status, String method, String path, String body) throws Exception {
    return expect(status, method, path, body, ADMIN);
  }

  private HttpResponse<String> expect(int status, String method, String path, String body, Map<String, String> caller)
      throws Exception {
    HttpResponse<String> r = http.send(method, path, body, caller);
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(status);
    return r;
  }

  private static String levels(Namespace ns) {
    StringBuilder b = new StringBuilder("[");
    for (String l : ns.levels()) {
      b.append(b.length() > 1 ? "," : "").append('"').append(l).append('"');
    }
    return b.append(']').toString();
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static Path path(String location) {
    return Path.of(location.replaceFirst("^file:(//)?", ""));
  }
}
