package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.HoldDao.Hold;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.DatabaseClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listings of retained (soft-deleted) tables: each reads the records and their recoverability
 * at the database's now in one handle, then, outside it, checks that a recoverable entry's current
 * metadata file still exists (docs/design/0301-hollow-restore.md).
 */
final class RetainedTables {
  // the lines keep the logger operators filter on (docs/soft-delete.md)
  private static final Logger LOG = LoggerFactory.getLogger(SoftDeletes.class);

  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final FileIOFactory fileIOFactory;

  RetainedTables(CatalogDatabase database, DatabaseClock clock, FileIOFactory fileIOFactory) {
    this.database = database;
    this.clock = clock;
    this.fileIOFactory = fileIOFactory;
  }

  /** {@link SoftDeletes#list(CatalogRow, Namespace)}. */
  Optional<List<DeletedTable>> list(CatalogRow catalog, Namespace namespace) {
    Optional<List<Listed>> listed = database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      List<Hold> holds = new HoldDao(h).list(catalog.catalogId(), false);
      return namespace(h, catalog, namespace).map(ns -> new DeletionDao(h).listRetained(ns.namespaceId()).stream()
          .map(r -> listed(tables, r, now, held(holds, ns, r, now)))
          .toList());
    });
    return listed.map(l -> withFileCheck(catalog, l));
  }

  /** {@link SoftDeletes#list(CatalogRow, Namespace, String, int)}. */
  Optional<KeysetPage<DeletedTable>> list(CatalogRow catalog, Namespace namespace, String after, int size) {
    Optional<KeysetPage<Listed>> listed = database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      List<Hold> holds = new HoldDao(h).list(catalog.catalogId(), false);
      return namespace(h, catalog, namespace).map(ns -> new DeletionDao(h).listRetainedPage(ns.namespaceId(), after, size)
          .map(r -> listed(tables, r, now, held(holds, ns, r, now))));
    });
    return listed.map(page -> new KeysetPage<>(withFileCheck(catalog, page.items()), page.next()));
  }

  /** {@link SoftDeletes#load}. */
  Optional<DeletedTable> load(CatalogRow catalog, TableIdentifier id) {
    return read(catalog, id).map(l -> withFileCheck(catalog, List.of(l)).get(0));
  }

  /** The retained table of that name as the database has it (no file check), if any. */
  Optional<Listed> read(CatalogRow catalog, TableIdentifier id) {
    return database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      List<Hold> holds = new HoldDao(h).list(catalog.catalogId(), false);
      return namespace(h, catalog, id.namespace())
          .flatMap(ns -> new DeletionDao(h).findRetained(ns.namespaceId(), id.name())
              .map(r -> listed(tables, r, now, held(holds, ns, r, now))));
    });
  }

  /** A retained table read from the database, and the metadata file the listing checks. */
  record Listed(DeletedTable table, String metadataLocation) {}

  /** Whether a hold covers the retained table at {@code now}, by the one rule of coverage. */
  private static boolean held(List<Hold> holds, NamespaceRow ns, RetainedDeletion r, long now) {
    return holds.stream().anyMatch(x -> x.covers(ns.name(), r.tableName(), now));
  }

  private static Listed listed(TableDao tables, RetainedDeletion r, long now, boolean held) {
    // a held table past its deadline is still restorable, so listed recoverable (docs/design/0444-legal-holds.md)
    DeletedTable t = new DeletedTable(r.tableName(), r.record(), r.purgeJobState(),
        SoftDeletePlanner.recoverable(r.record(), now, held), null, held);
    return new Listed(t, tables.findById(r.record().entityId()).map(TableRow::metadataLocation).orElse(null));
  }

  /**
   * The listing's side of docs/design/0301-hollow-restore.md: a recoverable entry whose current
   * metadata file is gone is shown as not recoverable, with the reason. One existence test per entry,
   * after the database read; a FileIO failure leaves the entry as the database says (undrop checks
   * again, deeper).
   */
  private List<DeletedTable> withFileCheck(CatalogRow catalog, List<Listed> listed) {
    if (listed.stream().noneMatch(l -> l.table().recoverable() && l.metadataLocation() != null)) {
      return listed.stream().map(Listed::table).toList();
    }
    List<DeletedTable> out = new ArrayList<>();
    try (FileIO io = fileIOFactory.create(catalog.warehouse(), catalog.properties())) {
      ReadableFiles.Probe probe = ReadableFiles.probe(io);
      for (Listed l : listed) {
        DeletedTable t = l.table();
        if (t.recoverable() && l.metadataLocation() != null) {
          try {
            if (ReadableFiles.checkMetadataFile(l.metadataLocation(), probe) instanceof ReadableFiles.Hollow hollow) {
              t = new DeletedTable(t.name(), t.record(), t.purgeJobState(), false, hollow.reason(), t.held());
            }
          } catch (RuntimeException e) {
            LOG.warn("Cannot check the metadata file of retained table {}: {}", t.name(), e.toString());
          }
        }
        out.add(t);
      }
    }
    return out;
  }

  /** The namespace's row, read on {@code h}; every soft-deletion transaction by name starts here. */
  static Optional<NamespaceRow> namespace(Handle h, CatalogRow catalog, Namespace namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    return new NamespaceDao(h).find(catalog.catalogId(), NamespaceNames.encode(namespace));
  }
}
