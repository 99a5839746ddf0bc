package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.io.UnreadableMetadataException;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoRetainedDeletion;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RestoreDecision;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The restore of a retained table (docs/design/0202-soft-deletion.md §4 "Restore"): the file
 * check outside any transaction (docs/design/0301-hollow-restore.md), then one transaction that
 * locks the record, then the table row, asks {@link SoftDeletePlanner#planRestore} and applies it.
 */
final class Restores {
  // the lines keep the logger operators filter on (docs/soft-delete.md)
  private static final Logger LOG = LoggerFactory.getLogger(SoftDeletes.class);
  /** Attempts of a restore whose record was replaced between the name lookup and the lock. */
  private static final int RESTORE_ATTEMPTS = 3;

  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final FileIOFactory fileIOFactory;
  private final RetainedTables retained;

  Restores(CatalogDatabase database, DatabaseClock clock, FileIOFactory fileIOFactory, RetainedTables retained) {
    this.database = database;
    this.clock = clock;
    this.fileIOFactory = fileIOFactory;
    this.retained = retained;
  }

  /** {@link SoftDeletes#restore}. */
  RestoreDecision restore(CatalogRow catalog, TableIdentifier id) {
    Optional<RestoreDecision> hollow = hollow(catalog, id);
    if (hollow.isPresent()) {
      return hollow.get();
    }
    for (int attempt = 1; ; attempt++) {
      Optional<RestoreDecision> done = database.jdbi().inTransaction(h -> restoreOnce(h, catalog, id));
      if (done.isPresent()) {
        if (done.get() instanceof Restore r) {
          // the entity id the listings show, not the internal deletion id
          LOG.info("Restored table {}.{} (entityId {})", catalog.name(), id, r.record().entityId());
        }
        return done.get();
      }
      if (attempt >= RESTORE_ATTEMPTS) {
        return new NoRetainedDeletion("the deletion of " + id + " changed concurrently; retry");
      }
    }
  }

  /**
   * Never restore a hollow table (docs/design/0301-hollow-restore.md): before the restore
   * transaction, and outside it (no file I/O under row locks), a recoverable retained table's
   * metadata file, current manifest list and manifests must exist. A non-recoverable one is left to
   * the transaction, which answers 404 or 410 as before.
   */
  private Optional<RestoreDecision> hollow(CatalogRow catalog, TableIdentifier id) {
    Optional<RetainedTables.Listed> listed = retained.read(catalog, id);
    if (listed.isEmpty() || !listed.get().table().recoverable() || listed.get().metadataLocation() == null) {
      return Optional.empty();
    }
    try (FileIO io = fileIOFactory.create(catalog.warehouse(), catalog.properties())) {
      ReadableFiles.Verdict verdict = ReadableFiles.check(listed.get().metadataLocation(), ReadableFiles.probe(io));
      if (verdict instanceof ReadableFiles.Hollow h) {
        LOG.warn("Refused to undrop {}.{}: {}", catalog.name(), id, h.detail());
        return Optional.of(new SoftDeletePlanner.Hollow(h.detail()));
      }
      if (verdict instanceof ReadableFiles.Unreadable u) {
        // the storage failed, not the client: a 5xx naming the file (docs/design/0431-a-spoiled-metadata-file-is-named-on-every-route.md)
        throw new UnreadableMetadataException("table", id.toString(), u.location(), u.cause());
      }
    }
    return Optional.empty();
  }

  /** One attempt; empty means the record was replaced between the lookup and the lock: retry. */
  private Optional<RestoreDecision> restoreOnce(Handle h, CatalogRow catalog, TableIdentifier id) {
    long now = clock.millis(h);
    Optional<NamespaceRow> ns = RetainedTables.namespace(h, catalog, id.namespace());
    if (ns.isEmpty()) {
      return Optional.of(new NoRetainedDeletion("namespace does not exist: " + id.namespace()));
    }
    TableDao tables = new TableDao(h);
    Optional<TableRow> byName = tables.findRetained(ns.get().namespaceId(), id.name());
    if (byName.isEmpty()) {
      boolean live = tables.find(ns.get().namespaceId(), id.name()).isPresent();
      return Optional.of(new NoRetainedDeletion(live ? "table " + id + " is live, not dropped" : "no retained deletion of " + id));
    }
    DeletionDao deletions = new DeletionDao(h);
    Optional<DeletionRecord> record = deletions.findForUpdate(byName.get().deletionId());
    Optional<TableRow> row = tables.findByIdForUpdate(byName.get().tableId());
    if (record.isEmpty() && row.map(TableRow::deletionId).filter(d -> !d.equals(byName.get().deletionId())).isPresent()) {
      return Optional.empty(); // restored and dropped again meanwhile: look the name up again
    }
    boolean held = row.flatMap(r -> new HoldDao(h).coveringTable(r.namespaceId(), r.name(), now)).isPresent();
    RestoreDecision d = SoftDeletePlanner.planRestore(record, row, now, held);
    if (d instanceof Restore r) {
      if (tables.clearDeletionId(r.row().tableId(), r.record().deletionId()) != 1
          || !deletions.deleteUnclaimed(r.record().deletionId())) {
        throw new IllegalStateException("Cannot restore " + id + ": locked rows changed");
      }
      // rule 2, after the record and row locks: the table comes back only if no other entry overlaps it
      LocationClaims.checkHeld(h, r.row().catalogId(), ClaimOwner.table(r.row().tableId()),
          () -> TableRoots.assumedFromMetadataFile(r.row().metadataLocation()), now, "Cannot undrop " + id);
    }
    return Optional.of(d);
  }
}
