package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.jobs.NewCleanupJob;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.catalog.Namespace;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link DeletionDao} and the soft deletion SQL of {@link TableDao} on H2, PostgreSQL and MariaDB. */
class DeletionDaoTest {
  private static final long T0 = 1_784_800_000_000L;

  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private CatalogRow catalog;
  private NamespaceRow ns;

  private void open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalog = catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(), Map.of());
    catalogs.catalog("main").orElseThrow().createNamespace(Namespace.of("db"), Map.of());
    ns = db.jdbi().withHandle(h -> new NamespaceDao(h).find(catalog.catalogId(), "db")).orElseThrow();
  }

  @AfterEach
  void close() throws Exception {
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  private TableRow table(String name) {
    TableRow row = new TableRow(UUID.randomUUID().toString(), catalog.catalogId(), ns.namespaceId(), name,
        "/w/db/" + name + "/metadata/00000.metadata.json", null, 0L, null, T0, T0);
    db.jdbi().useHandle(h -> new TableDao(h).insert(row));
    return row;
  }

  private static DeletionRecord record(TableRow table, long expires, boolean purge) {
    return new DeletionRecord(UUID.randomUUID().toString(), DeletionRecord.TABLE, table.tableId(), DeletionState.DELETED,
        T0, expires, "alice", purge, null);
  }

  /** The drop transaction: insert the record, then point the row at it. */
  private DeletionRecord softDrop(TableRow table, long expires, boolean purge) {
    DeletionRecord r = record(table, expires, purge);
    db.jdbi().useTransaction(h -> {
      new DeletionDao(h).insert(r);
      assertThat(new TableDao(h).setDeletionId(table.tableId(), r.deletionId())).isEqualTo(1);
    });
    return r;
  }

  private long job(String name, CleanupJobState state) {
    return db.jdbi().withHandle(h -> {
      long id = new CleanupJobDao(h).insert(new NewCleanupJob(CleanupObjectType.TABLE, "default", catalog.catalogId(),
          "main", NamespaceNames.encode(Namespace.of("db")), name, "/m.json", "impl", "props", "alice"), T0);
      h.createUpdate("UPDATE lethe_cleanup_job SET state = :s WHERE job_id = :id").bind("s", state.name()).bind("id", id).execute();
      return id;
    });
  }

  private Optional<DeletionRecord> find(String deletionId) {
    return db.jdbi().withHandle(h -> new DeletionDao(h).find(deletionId));
  }

  private Optional<DeletionRecord> findForUpdate(String deletionId) {
    return db.jdbi().inTransaction(h -> new DeletionDao(h).findForUpdate(deletionId));
  }

  private boolean markPurging(String deletionId, long job) {
    return db.jdbi().inTransaction(h -> new DeletionDao(h).markPurging(deletionId, job));
  }

  private int deleteRetained(TableRow t, String deletionId) {
    return db.jdbi().withHandle(h -> new TableDao(h).deleteRetained(t.tableId(), deletionId));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void recordRoundTripsEveryColumnAndLocksByIdInsideATransaction(String backend) throws Exception {
    open(backend);
    TableRow t = table("t");
    DeletionRecord r = softDrop(t, T0 + 5_000, true);

    assertThat(find(r.deletionId())).contains(r);
    assertThat(findForUpdate(r.deletionId())).contains(r);
    assertThat(findForUpdate("no-such-id")).isEmpty();
    assertThat(r.purgeJobId()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void softDroppedRowIsInvisibleToLiveReadsButStillHoldsItsName(String backend) throws Exception {
    open(backend);
    TableRow t = table("t");
    DeletionRecord r = softDrop(t, T0 + 5_000, false);

    db.jdbi().useHandle(h -> {
      TableDao tables = new TableDao(h);
      assertThat(tables.find(ns.namespaceId(), "t")).isEmpty();
      assertThat(tables.names(ns.namespaceId())).isEmpty();
      assertThat(tables.any(ns.namespaceId())).isFalse();
      assertThat(tables.findRetained(ns.namespaceId(), "t").map(TableRow::deletionId)).contains(r.deletionId());
      assertThat(tables.delete(ns.namespaceId(), "t")).isZero();
      assertThat(tables.rename(ns.namespaceId(), "t", ns.namespaceId(), "u", T0)).isZero();
      assertThat(tables.compareAndSetMetadataLocation(ns.namespaceId(), "t", t.metadataLocation(), "/x.json", T0)).isZero();
    });
    assertThatThrownBy(() -> table("t")).isInstanceOf(UnableToExecuteStatementException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void pointerNeverCascadesARecordCannotGoWhileARowPointsAtIt(String backend) throws Exception {
    open(backend);
    TableRow t = table("t");
    DeletionRecord r = softDrop(t, T0 + 5_000, false);

    assertThatThrownBy(() -> db.jdbi().useHandle(h -> new DeletionDao(h).deleteUnclaimed(r.deletionId())))
        .isInstanceOf(UnableToExecuteStatementException.class);
    assertThat(find(r.deletionId())).isPresent();

    assertThat(deleteRetained(t, r.deletionId())).isEqualTo(1);
    assertThat(find(r.deletionId())).as("row removal leaves the record").contains(r);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void setDeletionIdOnlyOnALiveRowAndClearOnlyWithTheSameDeletionId(String backend) throws Exception {
    open(backend);
    TableRow t = table("t");
    DeletionRecord r = softDrop(t, T0 + 5_000, false);
    DeletionRecord other = record(t, T0 + 5_000, false);
    db.jdbi().useHandle(h -> new DeletionDao(h).insert(other));

    db.jdbi().useHandle(h -> {
      TableDao tables = new TableDao(h);
      assertThat(tables.setDeletionId(t.tableId(), other.deletionId())).as("replayed drop").isZero();
      assertThat(tables.clearDeletionId(t.tableId(), other.deletionId())).isZero();
      assertThat(tables.deleteRetained(t.tableId(), other.deletionId())).isZero();
      assertThat(tables.clearDeletionId(t.tableId(), r.deletionId())).isEqualTo(1);
      assertThat(tables.find(ns.namespaceId(), "t")).isPresent();
      assertThat(tables.deleteRetained(t.tableId(), r.deletionId())).as("live row").isZero();
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void markPurgingIsACompareAndSetThatWinsOnce(String backend) throws Exception {
    open(backend);
    DeletionRecord r = softDrop(table("t"), T0, true);
    long job = job("t", CleanupJobState.PENDING);

    assertThat(markPurging(r.deletionId(), job)).isTrue();
    assertThat(markPurging(r.deletionId(), job + 1)).isFalse();

    DeletionRecord stored = find(r.deletionId()).orElseThrow();
    assertThat(stored.state()).isEqualTo(DeletionState.PURGING);
    assertThat(stored.purgeJobId()).isEqualTo(job);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void removalsAreGuardedByStateAndJobId(String backend) throws Exception {
    open(backend);
    TableRow t = table("t");
    DeletionRecord r = softDrop(t, T0, true);
    long job = job("t", CleanupJobState.SUCCEEDED);
    db.jdbi().useHandle(h -> new DeletionDao(h).markPurging(r.deletionId(), job));
    db.jdbi().useHandle(h -> new TableDao(h).deleteRetained(t.tableId(), r.deletionId()));

    db.jdbi().useHandle(h -> {
      DeletionDao d = new DeletionDao(h);
      assertThat(d.deleteUnclaimed(r.deletionId())).as("a claimed record is never restored").isFalse();
      assertThat(d.deletePurged(r.deletionId(), job + 1)).as("another generation's job").isFalse();
      assertThat(d.deletePurged(r.deletionId(), job)).isTrue();
      assertThat(d.find(r.deletionId())).isEmpty();
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void expiredIdsIncludeTheDeadlineInstantAndSkipClaimedRecords(String backend) throws Exception {
    open(backend);
    DeletionRecord atDeadline = softDrop(table("a"), T0 + 100, true);
    DeletionRecord before = softDrop(table("b"), T0 + 50, false);
    softDrop(table("c"), T0 + 101, true);
    DeletionRecord claimed = softDrop(table("d"), T0, true);
    long job = job("d", CleanupJobState.PENDING);
    db.jdbi().useHandle(h -> new DeletionDao(h).markPurging(claimed.deletionId(), job));

    List<String> expired = db.jdbi().withHandle(h -> new DeletionDao(h).expiredIds(T0 + 100, 10));
    assertThat(expired).containsExactly(before.deletionId(), atDeadline.deletionId());
    List<String> first = db.jdbi().withHandle(h -> new DeletionDao(h).expiredIds(T0 + 100, 1));
    assertThat(first).containsExactly(before.deletionId());
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void finalizableListsOnlyClaimedRecordsWhoseJobSucceeded(String backend) throws Exception {
    open(backend);
    DeletionRecord ok = softDrop(table("ok"), T0, true);
    DeletionRecord failed = softDrop(table("failed"), T0, true);
    DeletionRecord running = softDrop(table("running"), T0, true);
    softDrop(table("unclaimed"), T0, true);
    long okJob = job("ok", CleanupJobState.SUCCEEDED);
    db.jdbi().useHandle(h -> {
      DeletionDao d = new DeletionDao(h);
      d.markPurging(ok.deletionId(), okJob);
      d.markPurging(failed.deletionId(), job("failed", CleanupJobState.FAILED));
      d.markPurging(running.deletionId(), job("running", CleanupJobState.RUNNING));
    });

    List<DeletionRecord> candidates = db.jdbi().withHandle(h -> new DeletionDao(h).finalizable(10));
    assertThat(candidates).extracting(DeletionRecord::deletionId).containsExactly(ok.deletionId());
    assertThat(candidates.get(0).purgeJobId()).isEqualTo(okJob);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void retainedListingJoinsTheNameAndTheJobStateSortedByName(String backend) throws Exception {
    open(backend);
    table("live");
    DeletionRecord b = softDrop(table("b"), T0 + 5_000, false);
    DeletionRecord a = softDrop(table("a"), T0, true);
    long job = job("a", CleanupJobState.FAILED);
    db.jdbi().useHandle(h -> new DeletionDao(h).markPurging(a.deletionId(), job));

    List<RetainedDeletion> all = db.jdbi().withHandle(h -> new DeletionDao(h).listRetained(ns.namespaceId()));
    assertThat(all).extracting(RetainedDeletion::tableName).containsExactly("a", "b");
    assertThat(all.get(0).purgeJobState()).isEqualTo(CleanupJobState.FAILED);
    assertThat(all.get(0).record().state()).isEqualTo(DeletionState.PURGING);
    assertThat(all.get(1).purgeJobState()).isNull();
    assertThat(all.get(1).record()).isEqualTo(b);
    assertThat(all.get(1).namespaceId()).isEqualTo(ns.namespaceId());

    Optional<RetainedDeletion> one = db.jdbi().withHandle(h -> new DeletionDao(h).findRetained(ns.namespaceId(), "b"));
    assertThat(one.map(RetainedDeletion::record)).contains(b);
    Optional<RetainedDeletion> live = db.jdbi().withHandle(h -> new DeletionDao(h).findRetained(ns.namespaceId(), "live"));
    assertThat(live).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void nameHolderLockFindsLiveAndRetainedRowsAndIdLockFindsAnyRow(String backend) throws Exception {
    open(backend);
    TableRow live = table("live");
    TableRow kept = table("kept");
    DeletionRecord r = softDrop(kept, T0, false);

    db.jdbi().useTransaction(h -> {
      TableDao tables = new TableDao(h);
      TableRow liveRow = tables.findNameHolderForUpdate(ns.namespaceId(), "live").orElseThrow();
      assertThat(liveRow.deletionId()).isNull();
      assertThat(tables.findNameHolderForUpdate(ns.namespaceId(), "kept").map(TableRow::deletionId)).contains(r.deletionId());
      assertThat(tables.findNameHolderForUpdate(ns.namespaceId(), "none")).isEmpty();
      assertThat(tables.findByIdForUpdate(live.tableId()).map(TableRow::name)).contains("live");
      assertThat(tables.findByIdForUpdate(kept.tableId()).map(TableRow::name)).contains("kept");
    });
  }
}
