package dev.lethe.catalog.purge;

import static dev.lethe.catalog.purge.PurgeFixture.files;
import static dev.lethe.catalog.purge.PurgeFixture.id;
import static dev.lethe.catalog.purge.PurgeFixture.path;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.location.ClaimOwner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/design/0446-a-failed-job-keeps-its-locations.md as an invariant over random histories
 * (seeded; {@code -Dlethe.test.failclaims.seed=N} replays one, {@code -Dlethe.test.failclaims.steps=N}
 * makes it longer), with real Iceberg tables: drops with a purge (synchronous or asynchronous) that
 * fail on a spoiled manifest or succeed, creates at, under and above those tables' locations, writes,
 * metadata-only drops, retries, abandons, rescues and repairs of the spoiled manifests, interleaved.
 *
 * <p>Oracle, after every step: no file of a live table, or of a table dropped without purge, was
 * ever deleted; a purge that SUCCEEDED left nothing under its root; a create succeeds exactly when
 * its location overlaps nothing held (a live table, or a job PENDING, RUNNING or FAILED), and a
 * refusal names the holder; a FAILED job holds its location.
 */
class FailedJobLocationsRandomizedTest {
  @TempDir Path tmp;
  private PurgeFixture f;

  @AfterEach
  void close() throws Exception {
    if (f != null) {
      f.close();
    }
  }

  static Stream<Arguments> runs() {
    Long fixed = Long.getLong("lethe.test.failclaims.seed");
    long base = fixed != null ? fixed : System.nanoTime();
    if (fixed != null) {
      return Stream.of(Arguments.of("h2", base), Arguments.of("postgresql", base), Arguments.of("mariadb", base));
    }
    return Stream.of(Arguments.of("h2", base), Arguments.of("h2", base + 1), Arguments.of("h2", base + 2),
        Arguments.of("postgresql", base + 3), Arguments.of("mariadb", base + 4));
  }

  /** A purged table's job as the model knows it. */
  private static final class Job {
    final long id;
    final String name;
    final Path root;
    FailedJobLocations.Spoiled spoiled; // null once repaired, or never spoiled
    CleanupJobState state;

    Job(long id, String name, Path root, FailedJobLocations.Spoiled spoiled) {
      this.id = id;
      this.name = name;
      this.root = root;
      this.spoiled = spoiled;
    }
  }

  @ParameterizedTest(name = "{0} seed={1}")
  @MethodSource("runs")
  void noRetriedPurgeDeletesAFileItDoesNotOwn(String backend, long seed) throws Exception {
    int steps = Integer.getInteger("lethe.test.failclaims.steps", 32);
    System.out.println("FailedJobLocationsRandomizedTest backend=" + backend + " seed=" + seed
        + " (replay with -Dlethe.test.failclaims.seed=" + seed + ")");
    Random random = new Random(seed);
    f = new PurgeFixture(backend, tmp);
    FailedJobLocations ops = new FailedJobLocations(f);

    Map<String, Path> live = new LinkedHashMap<>(); // table name -> location
    Set<Path> kept = new LinkedHashSet<>(); // files of live tables and of tables dropped without purge
    List<Job> jobs = new ArrayList<>();
    List<String> history = new ArrayList<>();
    int names = 0;

    for (int step = 0; step < steps; step++) {
      int op = random.nextInt(7);
      List<Job> failed = jobs.stream().filter(j -> j.state == CleanupJobState.FAILED).toList();
      if (op == 0 || jobs.isEmpty()) {
        // a table in a directory of its own, dropped with a purge that fails when a manifest is spoiled
        String name = "a" + names++;
        Path family = Files.createDirectories(tmp.resolve("warehouse").resolve("f-" + name));
        Table a = f.catalog.buildTable(id(name), ParquetTables.SCHEMA).withPartitionSpec(ParquetTables.SPEC)
            .withLocation(family.resolve("t").toString()).create();
        ParquetTables.append(a, 0);
        FailedJobLocations.Spoiled spoiled = random.nextInt(3) > 0 ? FailedJobLocations.spoil(a) : null;
        boolean async = random.nextBoolean();
        long jobId = async ? f.enqueuer.dropTable(f.row, id(name), "alice").jobId()
            : f.catalog.purgeTable(id(name), "alice").job().jobId();
        Job job = new Job(jobId, name, family.resolve("t"), spoiled);
        job.state = f.awaitEnd(jobId).state();
        jobs.add(job);
        history.add("purge " + name + (async ? " async" : " sync") + (spoiled != null ? " spoiled" : "") + " -> job "
            + jobId + " " + job.state);
        assertThat(job.state).as(history.toString()).isEqualTo(spoiled != null ? CleanupJobState.FAILED
            : CleanupJobState.SUCCEEDED);
      } else if (op == 1 || op == 2) {
        // a user creates a table at, under or above a purged table's location
        // mostly near a FAILED job: the case the rule is about
        Job near = !failed.isEmpty() && random.nextInt(3) > 0 ? failed.get(random.nextInt(failed.size()))
            : jobs.get(random.nextInt(jobs.size()));
        Path at = switch (random.nextInt(3)) {
          case 0 -> near.root;
          case 1 -> near.root.resolve("b" + names);
          default -> near.root.getParent();
        };
        String name = "b" + names++;
        String holder = holderOf(at, live, jobs);
        Throwable refused = catchThrowable(() -> f.catalog.buildTable(id(name), ParquetTables.SCHEMA)
            .withPartitionSpec(ParquetTables.SPEC).withLocation(at.toString()).create());
        history.add("create " + name + " at " + tmp.relativize(at) + " -> " + (refused == null ? "created" : "409"));
        if (holder == null) {
          assertThat(refused).as(history.toString()).isNull();
          ParquetTables.append(f.catalog.loadTable(id(name)), 100);
          live.put(name, at);
          kept.addAll(files(at));
        } else {
          assertThat(refused).as(history + " expected held by " + holder).isInstanceOf(AlreadyExistsException.class)
              .hasMessageContaining(holder);
        }
      } else if (op == 3 && !live.isEmpty()) {
        // a metadata-only drop: the user keeps the table's files
        String name = new ArrayList<>(live.keySet()).get(random.nextInt(live.size()));
        assertThat(f.catalog.dropTable(id(name), false)).isTrue();
        live.remove(name);
        history.add("drop " + name + " keeping its files");
      } else if (op == 4 && !failed.isEmpty()) {
        Job job = failed.get(random.nextInt(failed.size()));
        assertThat(ops.retry(job.id).state()).isEqualTo(CleanupJobState.PENDING);
        job.state = f.awaitEnd(job.id).state();
        history.add("retry job " + job.id + (job.spoiled != null ? " (still spoiled)" : "") + " -> " + job.state);
        assertThat(job.state).as(history.toString()).isEqualTo(job.spoiled != null ? CleanupJobState.FAILED
            : CleanupJobState.SUCCEEDED);
      } else if (op == 5 && !failed.isEmpty()) {
        Job job = failed.get(random.nextInt(failed.size()));
        if (random.nextBoolean() || job.spoiled != null) {
          job.state = ops.abandon(job.id).state();
          history.add("abandon job " + job.id);
        } else {
          job.state = ops.rescue(job.id).state(); // nothing deleted yet (it failed before the data files), repaired
          live.put(job.name, job.root);
          kept.addAll(files(job.root));
          history.add("rescue job " + job.id);
        }
      } else if (op == 6) {
        jobs.stream().filter(j -> j.spoiled != null).findFirst().ifPresent(j -> {
          try {
            j.spoiled.repair();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          j.spoiled = null;
          history.add("repair job " + j.id + "'s manifest");
        });
      }

      // the oracle
      for (Path p : kept) {
        assertThat(p).as(history + ": a file of a live table or one dropped without purge").exists();
      }
      for (Job j : jobs) {
        if (j.state == CleanupJobState.SUCCEEDED && !live.containsValue(j.root)) {
          boolean reused = live.values().stream().anyMatch(l -> l.startsWith(j.root) || j.root.startsWith(l))
              || kept.stream().anyMatch(p -> p.startsWith(j.root));
          if (!reused) {
            assertThat(files(j.root)).as(history + ": job " + j.id + " SUCCEEDED").isEmpty();
          }
        }
        if (j.state == CleanupJobState.FAILED) {
          assertThat(ops.claims(ClaimOwner.job(j.id))).as(history + ": job " + j.id + " FAILED holds its root")
              .extracting(Object::toString).containsExactly(j.root.toString());
        }
      }
    }
    System.out.println("FailedJobLocationsRandomizedTest seed=" + seed + " history: " + history);
  }

  /**
   * What a create at {@code at} must be refused for, as the refusal names it, or null: a live table
   * or a job that may still delete (FAILED) whose location overlaps it.
   */
  private static String holderOf(Path at, Map<String, Path> live, List<Job> jobs) {
    for (Map.Entry<String, Path> e : live.entrySet()) {
      if (e.getValue().startsWith(at) || at.startsWith(e.getValue())) {
        return "live table db." + e.getKey();
      }
    }
    for (Job j : jobs) {
      if (j.state == CleanupJobState.FAILED && (j.root.startsWith(at) || at.startsWith(j.root))) {
        return "cleanup job " + j.id + " (FAILED)";
      }
    }
    return null;
  }
}
