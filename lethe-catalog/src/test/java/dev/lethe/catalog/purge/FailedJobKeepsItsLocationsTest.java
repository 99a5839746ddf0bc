package dev.lethe.catalog.purge;

import static dev.lethe.catalog.purge.PurgeFixture.files;
import static dev.lethe.catalog.purge.PurgeFixture.id;
import static dev.lethe.catalog.purge.PurgeFixture.path;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import dev.lethe.catalog.softdelete.SoftDeletes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A FAILED purge job keeps its location claims until it really ends
 * (docs/design/0446-a-failed-job-keeps-its-locations.md), on H2, PostgreSQL and MariaDB, with real
 * Iceberg tables: no table can be created at, under or above its location, so a retry never deletes
 * another table's files; abandon frees the location, a rescue hands it to the table, a success
 * releases it.
 */
class FailedJobKeepsItsLocationsTest {
  @TempDir Path tmp;
  private PurgeFixture f;
  private FailedJobLocations ops;
  private String location; // a's, as iceberg-java wrote it

  @AfterEach
  void close() throws Exception {
    if (f != null) {
      f.close();
    }
  }

  private void open(String backend) throws Exception {
    f = new PurgeFixture(backend, tmp);
    ops = new FailedJobLocations(f);
  }

  /** Table {@code a} with one snapshot, a manifest spoiled, dropped with an asynchronous purge that FAILED. */
  private CleanupJob failedPurgeOfA(FailedJobLocations.Spoiled[] spoiled) throws Exception {
    Table a = f.catalog.createTable(id("a"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    ParquetTables.append(a, 0);
    location = path(a.location()).toString();
    spoiled[0] = FailedJobLocations.spoil(a);
    CleanupJob job = f.purgeAsync("a");
    assertThat(job.state()).as(job.lastError()).isEqualTo(CleanupJobState.FAILED);
    return job;
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRetriedFailedPurgeNeverDeletesTheFilesOfATableCreatedUnderItsLocationSinceItFailed(String backend)
      throws Exception {
    open(backend);
    FailedJobLocations.Spoiled[] spoiled = {null};
    CleanupJob job = failedPurgeOfA(spoiled);
    String inside = location + "/b";

    // a user puts table b under the failed job's location, writes, and drops b keeping its files
    Throwable refused = catchThrowable(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(inside).create());
    List<Path> bFiles = List.of();
    if (refused == null) {
      ParquetTables.append(f.catalog.loadTable(id("b")), 100);
      bFiles = files(path(inside));
      assertThat(f.catalog.dropTable(id("b"), false)).isTrue(); // metadata only: the user keeps b's files
    }
    // the operator repairs the manifest and retries the failed purge
    spoiled[0].repair();
    ops.retry(job.jobId());
    CleanupJob ended = f.awaitEnd(job.jobId());

    assertThat(ended.state()).as(ended.lastError()).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(bFiles).as("b's files after the retry of a's purge").allMatch(Files::exists);
    assertThat(refused).as("creating b under a FAILED job's location").isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("cleanup job " + job.jobId() + " (FAILED) purging the dropped table db.a")
        .hasMessageContaining("until an operator retries the job (lethe catalog jobs retry " + job.jobId() + ")");
    assertThat(files(path(location))).as("a's purge leaves nothing").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aFailedJobsLocationIsRefusedAtItUnderItAndAboveItUntilTheJobIsAbandoned(String backend) throws Exception {
    open(backend);
    FailedJobLocations.Spoiled[] spoiled = {null};
    CleanupJob job = failedPurgeOfA(spoiled);
    assertThat(ops.claims(ClaimOwner.job(job.jobId()))).extracting(Object::toString).containsExactly(location);
    String parent = path(location).getParent().toString();

    for (String at : List.of(location, location + "/inner", parent)) {
      assertThatThrownBy(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(at).create())
          .as(at).isInstanceOf(AlreadyExistsException.class)
          .hasMessageStartingWith("Cannot create table db.b: location " + at)
          .hasMessageContaining("held by cleanup job " + job.jobId() + " (FAILED) purging the dropped table db.a, "
              + "which keeps the location until an operator retries the job (lethe catalog jobs retry " + job.jobId()
              + ") or abandons it (lethe catalog jobs abandon --reason TEXT " + job.jobId() + ")");
    }
    assertThat(f.catalog.tableExists(id("b"))).isFalse();
    int pruned = f.db.jdbi().withHandle(h -> new CleanupJobDao(h).pruneTerminal(Long.MAX_VALUE));
    assertThat(pruned).as("a FAILED job is never pruned").isZero();
    assertThat(f.job(job.jobId()).state()).isEqualTo(CleanupJobState.FAILED);

    assertThat(ops.abandon(job.jobId()).state()).isEqualTo(CleanupJobState.ABANDONED);

    assertThat(ops.claims(ClaimOwner.job(job.jobId()))).as("abandon releases the claims").isEmpty();
    Table b = f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location + "/inner").create();
    ParquetTables.append(b, 0);
    assertThat(ParquetTables.rows(f.catalog.loadTable(id("b")))).hasSize(6);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRetryKeepsTheLocationHeldAndItsSuccessReleasesIt(String backend) throws Exception {
    open(backend);
    FailedJobLocations.Spoiled[] spoiled = {null};
    CleanupJob job = failedPurgeOfA(spoiled);
    List<?> held = ops.claims(ClaimOwner.job(job.jobId()));
    assertThat(held).extracting(Object::toString).containsExactly(location);

    // retried while still spoiled: FAILED again, the claims never left the job
    assertThat(ops.retry(job.jobId()).state()).isEqualTo(CleanupJobState.PENDING);
    assertThat(f.awaitEnd(job.jobId()).state()).isEqualTo(CleanupJobState.FAILED);
    assertThat(ops.claims(ClaimOwner.job(job.jobId()))).isEqualTo(held);
    assertThatThrownBy(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + job.jobId() + " (FAILED)");

    spoiled[0].repair();
    ops.retry(job.jobId());
    assertThat(f.awaitEnd(job.jobId()).state()).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(ops.claims(ClaimOwner.job(job.jobId()))).as("a success releases the claims").isEmpty();
    assertThat(files(path(location))).isEmpty();
    assertThat(f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location).create()).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRescueOfAFailedJobHandsItsClaimsToTheTableItPutsBack(String backend) throws Exception {
    open(backend);
    FailedJobLocations.Spoiled[] spoiled = {null};
    CleanupJob job = failedPurgeOfA(spoiled);
    List<?> held = ops.claims(ClaimOwner.job(job.jobId()));
    assertThat(held).extracting(Object::toString).containsExactly(location);
    spoiled[0].repair();

    assertThat(ops.rescue(job.jobId()).state()).isEqualTo(CleanupJobState.CANCELLED);

    String tableId = f.db.jdbi().withHandle(h -> h.createQuery("SELECT table_id FROM lethe_table WHERE name = 'a'")
        .mapTo(String.class).one());
    assertThat(ops.claims(ClaimOwner.job(job.jobId()))).isEmpty();
    assertThat(ops.claims(ClaimOwner.table(tableId))).isEqualTo(held);
    assertThat(ParquetTables.rows(f.catalog.loadTable(id("a")))).hasSize(6);
    assertThatThrownBy(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location + "/inner").create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("held by live table db.a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aSynchronousPurgeThatFailsKeepsTheLocationToo(String backend) throws Exception {
    open(backend);
    Table a = f.catalog.createTable(id("a"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    ParquetTables.append(a, 0);
    String location = a.location();
    FailedJobLocations.spoil(a);

    long jobId = f.catalog.purgeTable(id("a"), "alice").job().jobId();

    assertThat(f.awaitEnd(jobId).state()).isEqualTo(CleanupJobState.FAILED);
    assertThatThrownBy(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + jobId + " (FAILED)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aSoftDeletedTablesFailedPurgeKeepsItsLocationUntilAbandoned(String backend) throws Exception {
    open(backend);
    SoftDeletes softDeletes = new SoftDeletes(f.db, "default", new SoftDeleteSettings(true, 3_600_000L, 60_000),
        CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key")), new FileIOFactory(),
        () -> UUID.randomUUID().toString());
    Table a = f.catalog.createTable(id("a"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    ParquetTables.append(a, 0);
    String location = a.location();
    FailedJobLocations.spoil(a);
    softDeletes.drop(f.row, id("a"), "alice", true);
    assertThatThrownBy(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location).create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("retained by deletion");

    long jobId = softDeletes.purgeNow(f.row, id("a"), "alice").purgeJobId();
    assertThat(f.awaitEnd(jobId).state()).isEqualTo(CleanupJobState.FAILED);

    assertThatThrownBy(() -> f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location + "/x").create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("cleanup job " + jobId + " (FAILED)");
    ops.abandon(jobId);
    assertThat(f.catalog.buildTable(id("b"), ParquetTables.SCHEMA).withLocation(location + "/x").create()).isNotNull();
  }
}
