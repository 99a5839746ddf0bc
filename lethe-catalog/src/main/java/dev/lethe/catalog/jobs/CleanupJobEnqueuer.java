package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDao;
import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.jdbi.v3.core.Handle;

/**
 * The request-thread half of the asynchronous purge (docs/design/0200-catalog-architecture.md "Drop paths", "Entities and
 * storage"; docs/design/0201-cleanup-jobs.md §3): in <b>one</b> database transaction it reads the entry's metadata
 * location, removes the entry and inserts the {@code PENDING} cleanup job, with the catalog's
 * FileIO implementation and its properties (encrypted) captured. A crash can therefore never leave
 * a dropped entry without its job, or a job for a live entry. In the same transaction the entry's
 * location claims pass to the job ({@link LocationClaims#transfer}; docs/design/0001-purge-
 * confinement-and-ownership.md §3), refused with 409 if another entry overlaps them.
 *
 * <p>A repeated drop finds no live entry and enqueues nothing. Thread-safe.
 */
public final class CleanupJobEnqueuer {
  private final CatalogDatabase database;
  private final String metalakeName;
  private final CredentialCipher cipher;
  private final FileIOFactory fileIOFactory;
  private final DatabaseClock clock;

  /**
   * @param database the catalog database holding entries and jobs
   * @param metalakeName the metalake whose catalogs are served
   * @param cipher encrypts captured FileIO properties
   * @param fileIOFactory decides the FileIO implementation of a catalog
   */
  public CleanupJobEnqueuer(CatalogDatabase database, String metalakeName, CredentialCipher cipher, FileIOFactory fileIOFactory) {
    this.database = Objects.requireNonNull(database);
    this.metalakeName = Objects.requireNonNull(metalakeName);
    this.cipher = Objects.requireNonNull(cipher);
    this.fileIOFactory = Objects.requireNonNull(fileIOFactory);
    this.clock = DatabaseClock.of(database.vendor());
  }

  /**
   * Drops a table's entry and enqueues the purge of its files.
   *
   * @param createdBy principal, for audit; not null
   * @return the inserted job ({@code PENDING})
   * @throws NoSuchTableException if there is no live table of that name (nothing changes)
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException if another entry that can become
   *     live holds a location overlapping the table's (nothing changes)
   * @throws dev.lethe.catalog.entity.HeldException if a legal hold covers the table (nothing changes)
   */
  public CleanupJob dropTable(CatalogRow catalog, TableIdentifier id, String createdBy) {
    return dropTable(catalog, id, createdBy, false).job();
  }

  /**
   * Drops a table's entry and inserts the purge job already claimed by the caller ({@code RUNNING},
   * heartbeat = the returned lease): the first half of the synchronous purge. No worker can take
   * the job while the caller's heartbeat renews the lease; if the caller dies, any replica reclaims
   * it after {@code heartbeat-timeout-ms} and finishes it.
   *
   * @throws NoSuchTableException if there is no live table of that name (nothing changes)
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException if another entry that can become
   *     live holds a location overlapping the table's (nothing changes)
   * @throws dev.lethe.catalog.entity.HeldException if a legal hold covers the table (nothing changes)
   */
  public JobClaimer.Claimed dropTableClaimed(CatalogRow catalog, TableIdentifier id, String createdBy) {
    return dropTable(catalog, id, createdBy, true);
  }

  private JobClaimer.Claimed dropTable(CatalogRow catalog, TableIdentifier id, String createdBy, boolean claimed) {
    String impl = fileIOFactory.implFor(catalog.warehouse(), catalog.properties());
    String props = cipher.encrypt(catalog.properties());
    return database.jdbi().inTransaction(h -> {
      NamespaceRow ns = namespace(h, catalog, id)
          .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", id));
      TableDao tables = new TableDao(h);
      // row-locked: a commit racing this drop either updated the row before (and its metadata
      // location is the one read here, so its files are purged) or finds it gone (404)
      TableRow row = tables.findNameHolderForUpdate(ns.namespaceId(), id.name())
          .filter(r -> r.deletionId() == null)
          .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", id));
      long now = clock.millis(h);
      // a held table is not purged: refused before anything changes (docs/design/0444-legal-holds.md)
      new HoldDao(h).check(ns.namespaceId(), id.name(), now, "Cannot purge table " + id);
      if (tables.delete(ns.namespaceId(), id.name()) != 1) {
        throw new NoSuchTableException("Table does not exist: %s", id);
      }
      CleanupJobDao jobs = new CleanupJobDao(h);
      long jobId = jobs.insert(new NewCleanupJob(CleanupObjectType.TABLE, metalakeName, catalog.catalogId(), catalog.name(),
          ns.name(), id.name(), row.metadataLocation(), impl, props, createdBy), now, claimed);
      // rule 2: the job holds the table's locations until it ends, or nothing happens
      LocationClaims.transfer(h, catalog.catalogId(), ClaimOwner.table(row.tableId()), ClaimOwner.job(jobId),
          () -> TableRoots.assumedFromMetadataFile(row.metadataLocation()), now, "Cannot purge " + id);
      return new JobClaimer.Claimed(jobs.find(jobId).orElseThrow(), new Lease(jobId, now));
    });
  }

  /**
   * Drops a view's entry and enqueues the removal of its metadata files.
   *
   * @return the inserted job ({@code PENDING})
   * @throws NoSuchViewException if there is no such view (nothing changes)
   */
  public CleanupJob dropView(CatalogRow catalog, TableIdentifier id, String createdBy) {
    String impl = fileIOFactory.implFor(catalog.warehouse(), catalog.properties());
    String props = cipher.encrypt(catalog.properties());
    return database.jdbi().inTransaction(h -> {
      NamespaceRow ns = namespace(h, catalog, id)
          .orElseThrow(() -> new NoSuchViewException("View does not exist: %s", id));
      ViewDao views = new ViewDao(h);
      ViewRow row = views.find(ns.namespaceId(), id.name())
          .orElseThrow(() -> new NoSuchViewException("View does not exist: %s", id));
      if (views.delete(ns.namespaceId(), id.name()) != 1) {
        throw new NoSuchViewException("View does not exist: %s", id);
      }
      CleanupJobDao jobs = new CleanupJobDao(h);
      long now = clock.millis(h);
      long jobId = jobs.insert(new NewCleanupJob(CleanupObjectType.VIEW, metalakeName, catalog.catalogId(), catalog.name(),
          ns.name(), id.name(), row.metadataLocation(), impl, props, createdBy), now);
      LocationClaims.transfer(h, catalog.catalogId(), ClaimOwner.view(row.viewId()), ClaimOwner.job(jobId),
          () -> List.of(LocationPath.parse(row.metadataLocation())), now, "Cannot purge view " + id);
      return jobs.find(jobId).orElseThrow();
    });
  }

  /**
   * Inserts, inside the caller's transaction {@code h}, the purge job ({@code PENDING}) of a table
   * row that is no longer live, such as one a soft deletion retained: its metadata location and its
   * catalog's FileIO. The caller owns the transaction, the row's lock and the claim transfer.
   *
   * @param createdBy principal, for audit; not null
   * @param now the database time of the caller's transaction (epoch millis)
   * @param path how the purge was asked for: {@link PurgePath#EXPIRY} or {@link PurgePath#PURGE_NOW}
   * @return the inserted job's id
   * @throws IllegalStateException if the row's catalog or namespace is gone
   */
  public long enqueueTable(Handle h, TableRow row, String createdBy, long now, PurgePath path) {
    CatalogRow catalog = new CatalogDao(h).findById(row.catalogId())
        .orElseThrow(() -> new IllegalStateException("Cannot purge table " + row.tableId() + ": its catalog is gone"));
    NamespaceRow ns = new NamespaceDao(h).findById(row.namespaceId())
        .orElseThrow(() -> new IllegalStateException("Cannot purge table " + row.tableId() + ": its namespace is gone"));
    return new CleanupJobDao(h).insert(new NewCleanupJob(CleanupObjectType.TABLE, metalakeName, catalog.catalogId(),
        catalog.name(), ns.name(), row.name(), row.metadataLocation(),
        fileIOFactory.implFor(catalog.warehouse(), catalog.properties()), cipher.encrypt(catalog.properties()), createdBy),
        now, false, path);
  }

  private static java.util.Optional<NamespaceRow> namespace(org.jdbi.v3.core.Handle h, CatalogRow catalog, TableIdentifier id) {
    if (id.namespace().isEmpty()) {
      return java.util.Optional.empty();
    }
    // the same row lock a create takes, so a create and a drop of one name serialize
    return new NamespaceDao(h).findForUpdate(catalog.catalogId(), NamespaceNames.encode(id.namespace()));
  }
}
