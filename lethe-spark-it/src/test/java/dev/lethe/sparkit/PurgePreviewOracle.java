package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.awaitility.Awaitility;

/**
 * Checks that the purge preview ({@code GET …/tables/{t}/purge-preview},
 * docs/design/0442-purge-preview.md) of a table Spark wrote through the README's settings is what the
 * purge then deletes, file for file. {@link #write} makes a realistic small table: two partitions,
 * three inserts, a merge-on-read delete (position delete files), a copy-on-write update, snapshot
 * expiry (Iceberg's Spark procedure) and a statistics file; small enough that every sample of the
 * preview (at most 20 paths per group) is complete, so the comparison is path by path, not only by
 * count. Used by {@link SparkAsyncPurgeTest} (live, async purge) and {@link SparkSoftDeleteTestBase}
 * (retained, purge-now).
 */
final class PurgePreviewOracle {
  private static final int SAMPLE_CAP = 20;

  private PurgePreviewOracle() {}

  /**
   * A realistic small Spark table: three partitions, four inserts, a merge-on-read delete, a
   * copy-on-write update, snapshot expiry keeping the last snapshot, table statistics. The last
   * insert carries the update's manifest, with the DELETED entry of the file the update replaced,
   * into the kept snapshot while expiry deletes that file: one file the metadata names is already
   * gone (docs/design/0442-purge-preview.md, r4). About 40 files, every preview group at most 15.
   * Returns its location.
   */
  static Path write(SparkSession spark, String catalog, String namespace, String table) throws Exception {
    String t = catalog + "." + namespace + "." + table;
    spark.sql("CREATE TABLE " + t + " (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)"
        + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='copy-on-write')");
    spark.sql("INSERT INTO " + t + " VALUES (1, 'eu'), (2, 'eu'), (3, 'us')");
    spark.sql("INSERT INTO " + t + " VALUES (4, 'eu'), (5, 'us')");
    spark.sql("INSERT INTO " + t + " VALUES (6, 'us')");
    spark.sql("DELETE FROM " + t + " WHERE id = 2");
    spark.sql("UPDATE " + t + " SET id = 50 WHERE id = 5");
    // carries the update's manifest (its DELETED entry included) into the one snapshot expiry keeps
    spark.sql("INSERT INTO " + t + " VALUES (7, 'ap')");
    spark.sql("CALL " + catalog + ".system.expire_snapshots(table => '" + namespace + "." + table
        + "', older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)");
    spark.sql("CALL " + catalog + ".system.compute_table_stats(table => '" + namespace + "." + table + "')");
    assertThat(spark.sql("SELECT id FROM " + t + " ORDER BY id").collectAsList().stream()
        .map(r -> r.getLong(0)).toList()).containsExactly(1L, 3L, 4L, 6L, 7L, 50L);
    Path loc = Path.of(Spark3Util.loadIcebergTable(spark, t).location().replaceFirst("^file:", ""));
    Map<String, Long> files = listing(loc);
    assertThat(files.keySet()).as("the history made position delete files").anyMatch(f -> f.endsWith("-deletes.parquet"))
        .as("and a statistics file").anyMatch(f -> f.endsWith(".stats"));
    return loc;
  }

  /** The preview: exact, listable, not failing, and every group small enough that its sample is complete. */
  static JsonNode preview(LetheServer server, String namespace, String table) throws IOException, InterruptedException {
    HttpResponse<String> r = server.send("GET",
        "/api/metalakes/default/catalogs/main/schemas/" + namespace + "/tables/" + table + "/purge-preview");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode p = LetheServer.JSON.readTree(r.body());
    assertThat(p.get("wouldFail").isNull()).as(r.body()).isTrue();
    assertThat(p.get("listable").asBoolean()).isTrue();
    assertThat(p.get("wouldDelete").get("exact").asBoolean()).isTrue();
    List<JsonNode> groups = new ArrayList<>();
    p.get("wouldDelete").get("kinds").forEach(groups::add);
    groups.add(p.get("alreadyGone"));
    p.get("wouldKeep").get("reasons").forEach(groups::add);
    for (JsonNode g : groups) {
      assertThat(g.get("files").asLong()).as("keep the table small: every sample complete\n" + r.body())
          .isLessThanOrEqualTo(SAMPLE_CAP);
      assertThat(g.get("sample").size()).as(g.toString()).isEqualTo(g.get("files").asInt());
    }
    return p;
  }

  /** Waits until the table's one cleanup job SUCCEEDED. */
  static void awaitJob(LetheServer server, String table) {
    Awaitility.await("the purge job of " + table + " SUCCEEDED").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).until(() -> {
          JsonNode jobs = server.cleanups(table);
          return jobs.size() == 1 && "SUCCEEDED".equals(jobs.get(0).get("state").asText());
        });
  }

  /**
   * The deleted set (before − after) is the preview's would-delete samples, path for path; counts and
   * bytes per kind are those of the deleted files on disk; the per-kind split agrees with what the
   * file names say; files the preview calls already gone were not there before; kept files remain.
   */
  static void assertPurgeMatches(JsonNode p, Map<String, Long> before, Map<String, Long> after) {
    TreeSet<String> deleted = new TreeSet<>(before.keySet());
    deleted.removeAll(after.keySet());
    assertThat(after.keySet()).as("the purge deleted, created nothing").isSubsetOf(before.keySet());

    JsonNode wd = p.get("wouldDelete");
    TreeMap<String, String> previewed = new TreeMap<>(); // path -> preview kind
    Map<String, Long> kindBytes = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = wd.get("kinds").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> kind = it.next();
      long bytes = 0;
      for (JsonNode s : kind.getValue().get("sample")) {
        String path = local(s.asText());
        assertThat(previewed.put(path, kind.getKey())).as("named once: " + path).isNull();
        assertThat(before).as("a file the preview would delete exists: " + path).containsKey(path);
        bytes += before.get(path);
      }
      assertThat(kind.getValue().get("bytes").asLong()).as(kind.getKey() + " bytes == their sizes on disk")
          .isEqualTo(bytes);
      kindBytes.put(kind.getKey(), bytes);
    }
    assertThat(deleted).as("what the purge deleted is what the preview said, file for file")
        .containsExactlyElementsOf(previewed.keySet());
    assertThat(wd.get("total").asLong()).isEqualTo(deleted.size());
    assertThat(wd.get("bytes").asLong()).as("bytes of the deleted files")
        .isEqualTo(deleted.stream().mapToLong(before::get).sum());

    // per kind: the preview's kind of each file is the one its name (Iceberg's naming) gives
    Map<String, Long> byName = new TreeMap<>();
    for (Map.Entry<String, String> e : previewed.entrySet()) {
      String named = kindOf(e.getKey());
      assertThat(e.getValue()).as("kind of " + e.getKey()).isIn(phasesOf(named));
      byName.merge(named, 1L, Long::sum);
    }
    JsonNode byKind = wd.get("bytesByKind");
    Map<String, Long> previewByKind = new TreeMap<>();
    byKind.fields().forEachRemaining(e -> {
      if (e.getValue().get("files").asLong() > 0) {
        previewByKind.put(e.getKey(), e.getValue().get("files").asLong());
      }
    });
    assertThat(previewByKind).as("bytesByKind counts == files classified by name").isEqualTo(byName);
    assertThat(byName).containsKeys("dataFiles", "deleteFiles", "manifests", "manifestLists", "statisticsFiles",
        "metadataFiles");
    long metadataBytes = kindBytes.get("previousMetadataFiles") + kindBytes.get("currentMetadataFile");
    assertThat(byKind.get("metadataFiles").get("bytes").asLong()).isEqualTo(metadataBytes);
    assertThat(byKind.get("dataFiles").get("bytes").asLong() + byKind.get("deleteFiles").get("bytes").asLong())
        .isEqualTo(kindBytes.get("dataAndDeleteFiles"));

    assertThat(p.get("alreadyGone").get("files").asLong()).as("the file expiry deleted, still named").isEqualTo(1);
    for (JsonNode s : p.get("alreadyGone").get("sample")) {
      assertThat(before).as("already gone before the purge: " + s.asText()).doesNotContainKey(local(s.asText()));
    }
    p.get("wouldKeep").get("reasons").forEach(reason -> reason.get("sample").forEach(s -> {
      String path = local(s.asText().substring(0, s.asText().indexOf(" (")));
      assertThat(Files.exists(Path.of(path))).as("kept: " + s.asText()).isTrue();
    }));
  }

  /** A file's kind from Iceberg's naming, in the preview's {@code bytesByKind} words. */
  private static String kindOf(String path) {
    String name = Path.of(path).getFileName().toString();
    if (name.endsWith(".crc")) {
      return "other";
    } else if (name.endsWith("-deletes.parquet")) {
      return "deleteFiles";
    } else if (name.endsWith(".parquet") && path.contains("/data/")) {
      return "dataFiles";
    } else if (name.startsWith("snap-") && name.endsWith(".avro")) {
      return "manifestLists";
    } else if (name.matches(".*-m\\d+\\.avro")) {
      return "manifests";
    } else if (name.endsWith(".stats")) {
      return "statisticsFiles";
    } else if (name.endsWith(".metadata.json")) {
      return "metadataFiles";
    }
    return "unknown: " + name;
  }

  /** The preview's phases (its {@code kinds}) a file of this kind may be counted in. */
  private static List<String> phasesOf(String kind) {
    return switch (kind) {
      case "dataFiles", "deleteFiles" -> List.of("dataAndDeleteFiles");
      case "metadataFiles" -> List.of("previousMetadataFiles", "currentMetadataFile");
      case "statisticsFiles" -> List.of("statisticsFiles", "partitionStatisticsFiles");
      case "other" -> List.of("unnamedUnderRoots");
      default -> List.of(kind);
    };
  }

  /** A path as the preview shows it ({@code file:/…} or plain) as a normalised local path. */
  private static String local(String path) {
    Path p = path.startsWith("file:") ? Path.of(URI.create(path)) : Path.of(path);
    return p.toAbsolutePath().normalize().toString();
  }

  /** Every regular file under {@code dir}, absolute path → size. */
  static Map<String, Long> listing(Path dir) throws IOException {
    Map<String, Long> m = new TreeMap<>();
    if (!Files.exists(dir)) {
      return m;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        m.put(f.toAbsolutePath().normalize().toString(), Files.size(f));
      }
    }
    return m;
  }
}
