package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;

/**
 * Kills a real {@code lethe server} on its default embedded H2 database with SIGKILL at random
 * points of synchronous and asynchronous purges, restarts it on the same data directory, and checks
 * the oracle after every restart: every table is either live and fully readable (every file its
 * metadata reaches exists) or dropped with its cleanup job present; at the end every job has
 * succeeded and left its table's location empty (docs/design/0054-no-file-deleted-before-the-drop-is-durable.md,
 * docs/design/0055-h2-appends-its-stores.md).
 *
 * <p>Each server life creates a table for a synchronous purge and one for an asynchronous purge
 * (a few hundred real Parquet files each), sends both drops and kills the server when a seeded
 * number of the chosen table's files is gone (0 = the first delete), or after a seeded delay. Jobs
 * of earlier lives are reclaimed and re-run by the restarted server, so later kills also land in
 * those.
 *
 * <p>Seeded: the seed is printed; replay with {@code -Dlethe.test.h2kill.seed=…}. Kills with
 * {@code -Dlethe.test.h2kill.rounds=…} (default 30), files per table with {@code
 * -Dlethe.test.h2kill.files=…} (default 200). {@code -Dlethe.test.h2kill.url-settings=;REUSE_SPACE=TRUE}
 * appends H2 settings to the catalog URL (that one restores H2's default space reuse, which fails
 * the oracle within a few kills: docs/design/0055-h2-appends-its-stores.md).
 */
class H2KillLoopTest {
  private static final String KEY = "q2Vn0CqP3mS0XlT3a3g8mYfH1D8Jw0uBq7c5XW0bE4Y=";
  private static final Namespace NS = Namespace.of("k");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** A table the loop made: its location and whether a drop of it was sent. */
  private static final class Made {
    final String name;
    final String location;
    boolean dropSent;
    boolean dropAcknowledged;

    Made(String name, String location) {
      this.name = name;
      this.location = location;
    }

    @Override
    public String toString() {
      return name + (dropAcknowledged ? "[drop acked]" : dropSent ? "[drop sent]" : "[live]");
    }
  }

  private final Map<String, Made> made = new LinkedHashMap<>();
  private final List<String> history = new ArrayList<>();

  @Test
  void afterEveryKillATableIsLiveAndReadableOrDroppedWithItsJob() throws Exception {
    long seed = Long.getLong("lethe.test.h2kill.seed", new Random().nextLong());
    int rounds = Integer.getInteger("lethe.test.h2kill.rounds", 30);
    int files = Integer.getInteger("lethe.test.h2kill.files", 200);
    System.out.println("H2KillLoopTest seed=" + seed + " (replay with -Dlethe.test.h2kill.seed=" + seed + "), rounds=" + rounds
        + ", files=" + files);
    Random random = new Random(seed);
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "h2-kill-loop-");
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("lethe.iceberg-rest.async-purge.encryption-key", KEY);
    keys.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "50");
    keys.put("lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "6000");
    keys.put("lethe.iceberg-rest.async-purge.delete-batch-size", "20");
    keys.put("lethe.iceberg-rest.async-purge.retry.initial-backoff-ms", "0");
    String settings = System.getProperty("lethe.test.h2kill.url-settings");
    if (settings != null) {
      keys.put("lethe.jdbc.url", "jdbc:h2:file:" + dir.toAbsolutePath().resolve("catalog") + ";DB_CLOSE_ON_EXIT=FALSE" + settings);
    }
    List<String> args = AsyncPurgeHttp.configArgs(dir, keys);
    int killsWhileDeleting = 0;
    long started = System.nanoTime();
    try {
      for (int round = 0; round < rounds; round++) {
        PurgeServer server = PurgeServer.start(dir, args);
        try {
          oracle(server, round);
          if (killsWhileDeleting(server, round, files, random)) {
            killsWhileDeleting++;
          }
        } finally {
          server.kill();
        }
      }
      try (PurgeServer last = PurgeServer.start(dir, args)) {
        oracle(last, rounds);
        everyJobSucceedsAndEmptiesItsLocation(last);
      }
    } catch (Throwable t) {
      throw new AssertionError("seed " + seed + " (replay with -Dlethe.test.h2kill.seed=" + seed + "): " + t
          + "\nhistory:\n  " + String.join("\n  ", history), t);
    }
    System.out.println("H2KillLoopTest seed=" + seed + ": " + rounds + " kills (" + killsWhileDeleting
        + " while a purge was deleting), " + made.size() + " tables, " + (System.nanoTime() - started) / 1_000_000 + " ms");
  }

  /**
   * One server life: two new tables, a synchronous and an asynchronous purge, a SIGKILL at a
   * seeded point. Returns whether the kill came while files of a purged table were going.
   */
  private boolean killsWhileDeleting(PurgeServer server, int round, int files, Random random) throws Exception {
    Made sync;
    Made async;
    try (RESTCatalog client = client(server)) {
      if (round == 0) {
        client.createNamespace(NS);
      }
      sync = create(client, "s" + round, files);
      async = create(client, "a" + round, files);
    }
    int target = random.nextInt(files + 1);
    boolean onSync = random.nextBoolean();
    long delayMs = random.nextInt(4) == 0 ? random.nextInt(300) : -1;
    boolean asyncFirst = random.nextBoolean();
    history.add("round " + round + ": kill " + (delayMs >= 0 ? delayMs + " ms after the drops" : "when " + target + " files of "
        + (onSync ? sync : async).name + " are gone") + (asyncFirst ? ", async drop first" : ""));
    CompletableFuture<HttpResponse<String>> syncDrop = null;
    if (!asyncFirst) {
      syncDrop = sendSyncDrop(server, sync);
    }
    async.dropSent = true;
    HttpResponse<String> asyncAnswer = AsyncPurgeHttp.drop(server.base(), "main", NS.level(0), async.name, true);
    if (asyncAnswer.statusCode() == 204) {
      async.dropAcknowledged = true;
    } else {
      throw new AssertionError("async drop of " + async.name + " answered " + asyncAnswer.statusCode() + ": " + asyncAnswer.body());
    }
    if (asyncFirst) {
      syncDrop = sendSyncDrop(server, sync);
    }
    int total = files(onSync ? sync : async);
    boolean deleting;
    if (delayMs >= 0) {
      // the kill lands at a seeded time after the purge started (no condition to wait for)
      await().pollDelay(Duration.ofMillis(delayMs)).atMost(Duration.ofMillis(delayMs + 10_000)).until(() -> true);
      deleting = true;
    } else {
      Made watched = onSync ? sync : async;
      CompletableFuture<HttpResponse<String>> watchedSync = syncDrop;
      // the first poll that sees the target reached kills: as close to the first delete as a poll can be
      await("kill point of " + watched.name).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1))
          .pollDelay(Duration.ZERO)
          .until(() -> files(watched) <= total - Math.max(1, target) || (onSync && watchedSync.isDone()) || files(watched) == 0);
      deleting = files(watched) > 0;
    }
    server.kill();
    if (syncDrop.isDone() && !syncDrop.isCompletedExceptionally() && syncDrop.get().statusCode() == 204) {
      sync.dropAcknowledged = true;
    }
    history.add("  killed: " + sync.name + " " + files(sync) + " files left" + (sync.dropAcknowledged ? " (204)" : "") + ", "
        + async.name + " " + files(async) + " files left");
    return deleting;
  }

  private CompletableFuture<HttpResponse<String>> sendSyncDrop(PurgeServer server, Made sync) {
    sync.dropSent = true;
    return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/iceberg/v1/main/namespaces/" + NS.level(0)
        + "/tables/" + sync.name + "?purgeRequested=true")).DELETE().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static RESTCatalog client(PurgeServer server) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("uri", server.icebergUri());
    props.put("warehouse", "main");
    props.put("io-impl", "dev.lethe.catalog.io.LocalFileIO");
    // no commit reports racing the kill (they only log warnings)
    props.put("rest-metrics-reporting-enabled", "false");
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("lethe", props);
    return catalog;
  }

  private Made create(RESTCatalog client, String name, int files) throws IOException {
    Table t = client.buildTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA).create();
    PurgeTables.appendCopies(t, files, 3);
    Made m = new Made(name, t.location());
    made.put(name, m);
    return m;
  }

  private static int files(Made m) throws IOException {
    // the table is unpartitioned: its data files are the entries of data/ (listed without a stat
    // of each, which a file deleted meanwhile would fail)
    try (Stream<Path> list = Files.list(Path.of(m.location.replaceFirst("^file:", "")).resolve("data"))) {
      return (int) list.count();
    } catch (NoSuchFileException gone) {
      return 0;
    }
  }

  /**
   * Every table is live and every file its metadata reaches exists, or it is dropped (404) and a
   * cleanup job of its name is listed. A drop answered 204 is never undone.
   */
  private void oracle(PurgeServer server, int round) throws Exception {
    try (RESTCatalog client = client(server)) {
      for (Made m : made.values()) {
        Table table;
        try {
          table = client.loadTable(TableIdentifier.of(NS, m.name));
        } catch (NoSuchTableException dropped) {
          JsonNode jobs = AsyncPurgeHttp.cleanups(server.base(), "main", "?name=" + m.name);
          if (jobs.size() == 0) {
            throw new AssertionError("after restart " + round + ": " + m + " is dropped but has no cleanup job");
          }
          continue;
        }
        if (m.dropAcknowledged) {
          throw new AssertionError("after restart " + round + ": " + m + " is live again after its drop was answered 204");
        }
        List<String> missing = missingReachableFiles(table);
        if (!missing.isEmpty()) {
          throw new AssertionError("after restart " + round + ": " + m + " is live but " + missing.size()
              + " files its metadata reaches are gone, e.g. " + missing.get(0) + " (" + files(m) + " data files left)");
        }
      }
    }
  }

  private static List<String> missingReachableFiles(Table table) throws IOException {
    List<String> missing = new ArrayList<>();
    for (Snapshot s : table.snapshots()) {
      if (!exists(s.manifestListLocation())) {
        missing.add(s.manifestListLocation());
        continue;
      }
      for (ManifestFile manifest : s.allManifests(table.io())) {
        if (!exists(manifest.path())) {
          missing.add(manifest.path());
          continue;
        }
        try (CloseableIterable<? extends ContentFile<?>> content = manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, table.io(), table.specs())
            : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (ContentFile<?> f : content) {
            if (!exists(f.location())) {
              missing.add(f.location());
            }
          }
        }
      }
    }
    return missing;
  }

  private static boolean exists(String location) {
    return Files.exists(Path.of(location.replaceFirst("^file:", "")));
  }

  private void everyJobSucceedsAndEmptiesItsLocation(PurgeServer server) throws Exception {
    for (Made m : made.values()) {
      if (!m.dropSent) {
        continue;
      }
      JsonNode jobs = AsyncPurgeHttp.cleanups(server.base(), "main", "?name=" + m.name);
      if (jobs.size() == 0) {
        continue; // a drop the kill came before: the table is live, checked by the oracle
      }
      await("the cleanup job of " + m.name + " to succeed").atMost(Duration.ofSeconds(120))
          .until(() -> "SUCCEEDED".equals(AsyncPurgeHttp.state(server.base(), "main", m.name)));
      assertThat(PurgeTables.files(m.location)).as("%s: files left after its job succeeded", m).isEmpty();
    }
    server.process.destroy();
    server.process.waitFor(30, TimeUnit.SECONDS);
  }
}
