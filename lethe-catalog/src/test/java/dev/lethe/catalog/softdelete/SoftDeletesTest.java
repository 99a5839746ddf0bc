package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyDropped;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Gone;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoRetainedDeletion;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoTable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SoftDeletes} on a real database (H2 always, PostgreSQL and MariaDB when configured) with
 * real Iceberg tables written by Iceberg's Parquet writers: drop, name hold, list, restore.
 */
class SoftDeletesTest extends SoftDeleteFixture {
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void dropKeepsRowAndEveryFileHidesTheTableAndRecordsWhoWhenAndPurge(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Set<Path> files = filesUnder(table.location());
    SoftDeletes sd = softDeletes(true, DAY);

    DeletionRecord r = drop(sd, "t", true);

    assertThat(r.entityId()).isNotBlank();
    assertThat(r.state()).isEqualTo(DeletionState.DELETED);
    assertThat(r.deletedBy()).isEqualTo("alice");
    assertThat(r.purgeRequested()).isTrue();
    assertThat(r.retentionExpiresAt() - r.deletedAt()).isEqualTo(DAY);
    assertThat(Math.abs(r.deletedAt() - System.currentTimeMillis())).as("database clock").isLessThan(60_000);
    assertThat(catalog.tableExists(id("t"))).isFalse();
    assertThat(catalog.listTables(ParquetTables.NS)).isEmpty();
    assertThatThrownBy(() -> catalog.loadTable(id("t"))).isInstanceOf(NoSuchTableException.class);
    assertThat(catalog.dropTable(id("t"), true)).as("hard drop paths never see a retained row").isFalse();
    assertThatThrownBy(() -> new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory()).dropTable(row, id("t"), "bob"))
        .isInstanceOf(NoSuchTableException.class);
    assertThat(sd.load(row, id("t")).orElseThrow().record()).as("the record survives every hard drop path").isEqualTo(r);
    assertThat(filesUnder(table.location())).isEqualTo(files);
    DeletedTable listed = sd.list(row, ParquetTables.NS).orElseThrow().get(0);
    assertThat(listed.name()).isEqualTo("t");
    assertThat(listed.record()).isEqualTo(r);
    assertThat(listed.recoverable()).isTrue();
    assertThat(listed.purgeJobState()).isNull();
  }

  @org.junit.jupiter.api.Test
  void theDropLogLineNamesWhatTheListingsShowAndTheDeadlineAsAnInstant() throws Exception {
    open("h2");
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(SoftDeletes.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    log.addAppender(lines);
    ch.qos.logback.classic.Level level = log.getLevel();
    log.setLevel(ch.qos.logback.classic.Level.INFO);
    DeletionRecord r;
    try {
      r = drop(softDeletes(true, DAY), "t", false);
    } finally {
      log.detachAppender(lines);
      log.setLevel(level);
    }
    assertThat(lines.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
        .anyMatch(m -> m.contains("entityId " + r.entityId())
            && m.contains("recoverable until " + java.time.Instant.ofEpochMilli(r.retentionExpiresAt()) + " = "
                + r.retentionExpiresAt() + " ms")
            && !m.contains(r.deletionId()));
  }

  /** A purge-now is an admin's act before the deadline: its line names who, never "expired" (the timer's word). */
  @org.junit.jupiter.api.Test
  void aPurgeNowLogLineSaysPurgedNowByWhoAndNotExpired() throws Exception {
    open("h2");
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    catalog.createTable(id("u"), ParquetTables.SCHEMA);
    SoftDeletes sd = softDeletes(true, DAY);
    DeletionRecord purging = drop(sd, "t", true);
    DeletionRecord kept = drop(sd, "u", false);
    ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(SoftDeletes.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    log.addAppender(lines);
    ch.qos.logback.classic.Level level = log.getLevel();
    log.setLevel(ch.qos.logback.classic.Level.INFO);
    long jobId;
    try {
      jobId = sd.purgeNow(row, id("t"), "root").purgeJobId();
      sd.purgeNow(row, id("u"), "root");
    } finally {
      log.detachAppender(lines);
      log.setLevel(level);
    }
    assertThat(lines.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).containsExactly(
        "Deletion of table t (entityId " + purging.entityId() + ") purged now by root: PURGING, cleanup job " + jobId
            + " enqueued",
        "Deletion of entityId " + kept.entityId() + " purged now by root: metadata removed (purgeRequested=false, files kept)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void replayedDropCreatesNothingAndDropOfNothingIsNoTable(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    SoftDeletes sd = softDeletes(true, DAY);
    DeletionRecord r = drop(sd, "t", false);

    assertThat(sd.drop(row, id("t"), "bob", true)).isEqualTo(new AlreadyDropped(r.deletionId()));
    assertThat(sd.drop(row, id("none"), "bob", true)).isInstanceOf(NoTable.class);
    assertThat(sd.drop(row, TableIdentifier.of(Namespace.of("nope"), "t"), "bob", true)).isInstanceOf(NoTable.class);
    assertThat(recordCount()).isEqualTo(1);
    assertThat(sd.load(row, id("t")).orElseThrow().record()).isEqualTo(r);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void heldNameRefusesCreateRegisterRenameAndViewsNamingTheDeletionAndDeadline(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    String metadata = ParquetTables.metadata(table).metadataFileLocation();
    catalog.createTable(id("other"), ParquetTables.SCHEMA);
    catalog.buildView(id("v")).withSchema(ParquetTables.SCHEMA).withDefaultNamespace(ParquetTables.NS)
        .withQuery("spark", "select 1").create();
    DeletionRecord r = drop(softDeletes(true, DAY), "t", false);
    String deadline = java.time.Instant.ofEpochMilli(r.retentionExpiresAt()).toString();

    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId()).hasMessageContaining(deadline);
    assertThatThrownBy(() -> catalog.registerTable(id("t"), metadata))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId());
    assertThatThrownBy(() -> catalog.registerTable(id("t"), metadata, true))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId());
    assertThatThrownBy(() -> catalog.renameTable(id("other"), id("t")))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId());
    assertThatThrownBy(() -> catalog.renameView(id("v"), id("t")))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId());
    assertThatThrownBy(() -> catalog.buildView(id("t")).withSchema(ParquetTables.SCHEMA)
        .withDefaultNamespace(ParquetTables.NS).withQuery("spark", "select 1").create())
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId());
    assertThat(catalog.tableExists(id("other"))).isTrue();
    assertThat(catalog.viewExists(id("v"))).isTrue();
    assertThat(sd(r)).isEqualTo(r);
  }

  private DeletionRecord sd(DeletionRecord r) {
    return db.jdbi().withHandle(h -> new DeletionDao(h).find(r.deletionId())).orElseThrow();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void restoreBringsBackTheSameTableIdMetadataAndRowsAndAReplayIsNotFound(String backend) throws Exception {
    open(backend);
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata before = ParquetTables.metadata(table);
    List<org.apache.iceberg.data.Record> rows = ParquetTables.rows(table);
    SoftDeletes sd = softDeletes(true, DAY);
    DeletionRecord r = drop(sd, "t", true);

    SoftDeletePlanner.RestoreDecision d = sd.restore(row, id("t"));

    assertThat(d).isInstanceOf(Restore.class);
    assertThat(((Restore) d).row().tableId()).isEqualTo(r.entityId());
    Table back = catalog.loadTable(id("t"));
    assertThat(ParquetTables.metadata(back).metadataFileLocation()).isEqualTo(before.metadataFileLocation());
    assertThat(ParquetTables.metadata(back).uuid()).isEqualTo(before.uuid());
    assertThat(ParquetTables.rows(back)).containsExactlyInAnyOrderElementsOf(rows);
    assertThat(recordCount()).isZero();
    assertThat(sd.restore(row, id("t"))).as("replayed restore of a live table").isInstanceOf(NoRetainedDeletion.class);
    assertThat(sd.restore(row, id("none"))).isInstanceOf(NoRetainedDeletion.class);
    assertThat(sd.restore(row, TableIdentifier.of(Namespace.of("nope"), "t"))).isInstanceOf(NoRetainedDeletion.class);
    back.newAppend().appendFile(ParquetTables.append(back, 900).get(0)).commit(); // commits work again
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void retentionZeroIsExpiredAtOnceAndRestoreIsGone(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    SoftDeletes sd = softDeletes(true, 0);
    DeletionRecord r = drop(sd, "t", false);

    assertThat(r.retentionExpiresAt()).isEqualTo(r.deletedAt());
    SoftDeletePlanner.RestoreDecision d = sd.restore(row, id("t"));
    assertThat(d).isInstanceOf(Gone.class);
    assertThat(((Gone) d).reason()).contains("deadline passed");
    assertThat(sd.load(row, id("t")).orElseThrow().recoverable()).isFalse();
    assertThat(catalog.tableExists(id("t"))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void flagOffRefusesNewSoftDropsButStillListsAndRestoresExistingRecords(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    catalog.createTable(id("u"), ParquetTables.SCHEMA);
    drop(softDeletes(true, DAY), "t", true);
    SoftDeletes off = softDeletes(false, DAY);

    assertThat(off.enabled()).isFalse();
    assertThatThrownBy(() -> off.drop(row, id("u"), "alice", true)).isInstanceOf(IllegalStateException.class);
    assertThat(off.list(row, ParquetTables.NS).orElseThrow()).extracting(DeletedTable::name).containsExactly("t");
    assertThat(off.restore(row, id("t"))).isInstanceOf(Restore.class);
    assertThat(catalog.tableExists(id("t"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namespaceWithRetainedDeletionsDoesNotDropAndNamesThem(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    DeletionRecord r = drop(softDeletes(true, DAY), "t", false);

    assertThatThrownBy(() -> catalog.dropNamespace(ParquetTables.NS))
        .isInstanceOf(NamespaceNotEmptyException.class).hasMessageContaining("t (entity id " + r.entityId()).hasMessageNotContaining(r.deletionId());
    assertThat(catalog.namespaceExists(ParquetTables.NS)).isTrue();
    assertThat(softDeletes(false, DAY).list(row, Namespace.of("nope"))).isEmpty();
  }
}
