package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.TablePurge;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.location.WriteConfinement;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.BaseMetastoreViewCatalog;
import org.apache.iceberg.view.ViewOperations;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Lethe catalog as an Iceberg {@link org.apache.iceberg.catalog.Catalog}, {@link
 * SupportsNamespaces} and {@link org.apache.iceberg.catalog.ViewCatalog}, over the entity store
 * (docs/design/0200-catalog-architecture.md). Iceberg's own REST handlers drive it; it knows nothing of HTTP.
 *
 * <p>Namespaces must exist before tables and views are created in them and drop only when they hold
 * no table, view or child namespace. Dropping a table without purge removes its entry and leaves
 * every file; with purge it removes the entry and inserts a cleanup job in one transaction, then
 * runs that job before returning (docs/design/0051-synchronous-purge-is-a-durable-job.md).
 * Dropping a view removes its entry only.
 *
 * <p>Default table locations are {@code <namespace location>/<table>-<id>}, where the namespace
 * location is its {@code location} property or {@code <warehouse>/<level>/<level>…}; the unique
 * suffix keeps a re-created table from sharing a directory with a dropped one (set catalog property
 * {@code unique-table-location=false} for plain names).
 */
public final class LetheCatalog extends BaseMetastoreViewCatalog implements SupportsNamespaces {
  private static final Logger LOG = LoggerFactory.getLogger(LetheCatalog.class);

  /**
   * Catalog property: whether default table locations get a unique suffix (default true, unlike
   * Iceberg's false). Same key as {@link CatalogProperties#UNIQUE_TABLE_LOCATION}.
   */
  public static final String UNIQUE_TABLE_LOCATION = CatalogProperties.UNIQUE_TABLE_LOCATION;

  private final Jdbi jdbi;
  private final CatalogRow catalog;
  private final FileIO io;
  private final TablePurge purge;
  private final Clock clock;
  private final Supplier<String> ids;
  private final AllowedLocations allowed;
  private final Namespaces namespaces;
  private final Entries<TableRow> tables;
  private final Entries<ViewRow> views;
  private final MultiTableCommit multiTableCommit;
  private final DefaultLocations defaultLocations;

  /**
   * @param database the entity store
   * @param catalog the catalog row served
   * @param io the FileIO of this catalog (owned: closed with the catalog)
   * @param purge the synchronous purge run by {@code dropTable(id, true)}
   * @param clock source of entry times
   * @param ids source of unique ids (UUID strings)
   * @throws dev.lethe.catalog.location.InvalidLocationException if the catalog's warehouse or its
   *     {@code allowed-locations} property does not parse
   */
  public LetheCatalog(
      CatalogDatabase database, CatalogRow catalog, FileIO io, TablePurge purge, Clock clock, Supplier<String> ids) {
    this.jdbi = database.jdbi();
    this.catalog = catalog;
    this.io = io;
    this.purge = purge;
    this.clock = clock;
    this.ids = ids;
    this.allowed = AllowedLocations.of(catalog.warehouse(), catalog.properties());
    this.namespaces = new Namespaces(jdbi, catalog.catalogId(), clock, ids, allowed);
    this.tables = Entries.tables(jdbi, catalog.catalogId(), clock, namespaces);
    this.views = Entries.views(jdbi, catalog.catalogId(), clock, namespaces);
    this.multiTableCommit = new MultiTableCommit(jdbi, catalog.catalogId(), clock, allowed,
        id -> (LetheTableOperations) newTableOps(id));
    this.defaultLocations = new DefaultLocations(catalog, ids, namespaces);
    initialize(catalog.name(), catalog.properties());
  }

  /** The catalog row this instance serves. */
  public CatalogRow row() {
    return catalog;
  }

  /** Where this catalog lets tables, views and namespaces live: its warehouse and {@code allowed-locations}. */
  public AllowedLocations allowedLocations() {
    return allowed;
  }

  /**
   * Refuses (400) a create or stage-create request with a null property key or value, or whose
   * {@code location} or write path properties lie outside the allowed locations, before anything is built (docs/design/0001-purge-confinement-and-ownership.md §2; the commit
   * checks the full metadata again).
   *
   * @param location the requested location, or null for the default
   * @param properties the requested properties, or null
   * @throws IllegalArgumentException naming a property with a null key or value
   * @throws dev.lethe.catalog.location.InvalidLocationException naming the location refused
   */
  public void checkCreateRequest(String location, Map<String, String> properties) {
    if (properties != null) {
      properties.forEach((k, v) -> Namespaces.requireString("table property", k, v));
    }
    WriteConfinement.checkCreateRequest(allowed, location, properties);
  }

  /**
   * The catalog's name (the REST prefix, e.g. {@code main}). Iceberg's default is {@code
   * toString()}, the same {@code LetheCatalog{}} for every catalog, so anything keyed by it (page
   * tokens' scope, docs/design/0423-signed-page-tokens.md) could not tell two catalogs apart.
   */
  @Override
  public String name() {
    return catalog.name();
  }

  @Override
  protected Map<String, String> properties() {
    return catalog.properties();
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    return new LetheTableOperations(
        new EntryOperations<>(EntryOperations.Kind.TABLE, jdbi, catalog.catalogId(), identifier, io, clock, ids, allowed));
  }

  @Override
  protected ViewOperations newViewOps(TableIdentifier identifier) {
    return new LetheViewOperations(
        new EntryOperations<>(EntryOperations.Kind.VIEW, jdbi, catalog.catalogId(), identifier, io, clock, ids, allowed));
  }

  @Override
  protected boolean isValidIdentifier(TableIdentifier identifier) {
    return !identifier.namespace().isEmpty();
  }

  @Override
  protected String defaultWarehouseLocation(TableIdentifier identifier) {
    EntityNames.checkIdentifier("table", identifier);
    return defaultLocations.table(identifier);
  }

  /** {@link DefaultLocations#stripTrailingSlash}. */
  static String stripTrailingSlash(String location) {
    return DefaultLocations.stripTrailingSlash(location);
  }

  // ---- tables ----

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return tables.exists(identifier);
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return tables.list(namespace);
  }

  /**
   * One page of the live tables of a namespace, by name (docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last table name, or null for the first page
   * @param size the page size, at least 1
   * @return the page; its cursor is a table name
   * @throws NoSuchNamespaceException if the namespace does not exist
   */
  public KeysetPage<TableIdentifier> listTables(Namespace namespace, String after, int size) {
    return tables.list(namespace, after, size);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, org.apache.iceberg.Schema schema) {
    EntityNames.checkIdentifier("table", identifier);
    checkNameFree(identifier);
    return super.buildTable(identifier, schema);
  }

  /** Recorded as the job's {@code createdBy} of a purge asked through the {@code Catalog} API. */
  public static final String CATALOG_API_PRINCIPAL = "catalog-api";

  /**
   * Drops a table. Without purge only the entry goes (and its location claims, in the same
   * transaction); with purge see {@link #purgeTable}.
   *
   * @return false if no live table of that name exists
   * @throws AlreadyExistsException (purge only) if another entry that can become live overlaps the
   *     table's location: purging would delete its files; nothing changes
   */
  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    if (purge) {
      try {
        purgeTable(identifier, CATALOG_API_PRINCIPAL);
        return true;
      } catch (NoSuchTableException e) {
        return false;
      }
    }
    if (!tables.drop(identifier)) {
      return false;
    }
    LOG.info("Dropped table {}.{} (purge=false)", catalog.name(), identifier);
    return true;
  }

  /**
   * The synchronous purge (docs/design/0051-synchronous-purge-is-a-durable-job.md): one transaction removes the entry, hands its location
   * claims to a cleanup job and inserts that job claimed by this process; then the job runs on the
   * calling thread with the executor the async workers use. The entry is gone whatever the run's
   * outcome; a failed attempt leaves the job to the workers (see the returned state).
   *
   * @param createdBy principal recorded with the job
   * @throws NoSuchTableException if there is no live table of that name (nothing changes)
   * @throws AlreadyExistsException if another entry that can become live overlaps the table's
   *     location (nothing changes)
   */
  public PurgeJobExecutor.Finished purgeTable(TableIdentifier identifier, String createdBy) {
    EntityNames.checkIdentifier("table", identifier);
    PurgeJobExecutor.Finished finished = purge.purgeTable(catalog, identifier, createdBy);
    LOG.info("Dropped table {}.{} (purge=true, cleanup job {} {})", catalog.name(), identifier, finished.job().jobId(),
        finished.state());
    return finished;
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    tables.rename(from, to);
  }

  /**
   * Registers an existing metadata file as a table; with {@code overwrite} an existing table's
   * entry is pointed at the file instead (its files are not touched).
   *
   * @throws AlreadyExistsException if the table exists and {@code overwrite} is false
   * @throws NoSuchTableException if the table was dropped before the entry could be re-pointed
   * @throws dev.lethe.catalog.location.InvalidLocationException if the metadata file does not
   *     parse or lies outside the table's roots, or the table's locations are not allowed
   */
  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation, boolean overwrite) {
    EntityNames.checkIdentifier("table", identifier);
    WriteConfinement.spelling("metadata file", metadataFileLocation);
    ColumnLimits.checkMetadataLocation("Cannot register " + identifier, metadataFileLocation);
    if (!overwrite || !tableExists(identifier)) {
      return registerTable(identifier, metadataFileLocation);
    }
    LetheTableOperations ops = (LetheTableOperations) newTableOps(identifier);
    TableMetadata current = ops.current();
    // fail before any change if unreadable, outside the allowed locations or outside its own roots
    TableMetadata next = RegisteredMetadata.readTable(ops.io(), identifier, metadataFileLocation);
    WriteConfinement.checkTable(allowed, null, next);
    TableRoots roots = TableRoots.of(next);
    WriteConfinement.checkRegisteredMetadataFile(roots, metadataFileLocation);
    ops.repoint(current.metadataFileLocation(), metadataFileLocation, roots);
    TableOperations fresh = newTableOps(identifier);
    fresh.refresh();
    return new BaseTable(fresh, fullTableName(name(), identifier), metricsReporter());
  }

  /**
   * Registers an existing metadata file as a new table.
   *
   * @throws AlreadyExistsException if the table exists, or if another entry that can become live (a
   *     live or retained table, a view, a pending or running cleanup job) holds a location
   *     overlapping the registered table's: the two entries would share files, and purging either
   *     would delete the other's data
   */
  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    EntityNames.checkIdentifier("table", identifier);
    WriteConfinement.spelling("metadata file", metadataFileLocation);
    ColumnLimits.checkMetadataLocation("Cannot register " + identifier, metadataFileLocation);
    checkNameFree(identifier);
    // a file that is not table metadata JSON is the client's mistake (400), found before anything is written
    RegisteredMetadata.readTable(io, identifier, metadataFileLocation);
    return super.registerTable(identifier, metadataFileLocation);
  }

  /**
   * Commits changes to several tables atomically: every new metadata file is written first, then
   * every metadata location is swapped in one database transaction; if any swap loses its race,
   * none is applied.
   *
   * @throws NoSuchTableException if a table does not exist, or was dropped before the swap
   * @throws CommitFailedException if a requirement fails or another commit won (nothing changed)
   * @throws dev.lethe.catalog.location.InvalidLocationException if a commit sets a location
   *     outside the allowed locations or writes a refused path into metadata (nothing written)
   */
  public void commitTransaction(List<TableCommit> commits) {
    multiTableCommit.commit(commits);
  }

  // ---- views ----

  @Override
  public boolean viewExists(TableIdentifier identifier) {
    return views.exists(identifier);
  }

  @Override
  public org.apache.iceberg.view.ViewBuilder buildView(TableIdentifier identifier) {
    EntityNames.checkIdentifier("view", identifier);
    checkNameFree(identifier);
    return super.buildView(identifier);
  }

  /**
   * Registers an existing view metadata file as a view.
   *
   * @throws dev.lethe.catalog.location.InvalidLocationException if the file does not parse or lies
   *     outside the allowed locations (checked before it is read)
   */
  @Override
  public org.apache.iceberg.view.View registerView(TableIdentifier identifier, String metadataFileLocation) {
    EntityNames.checkIdentifier("view", identifier);
    WriteConfinement.checkViewMetadataFile(allowed, metadataFileLocation);
    ColumnLimits.checkMetadataLocation("Cannot register view " + identifier, metadataFileLocation);
    RegisteredMetadata.readView(io, identifier, metadataFileLocation);
    return super.registerView(identifier, metadataFileLocation);
  }

  @Override
  public List<TableIdentifier> listViews(Namespace namespace) {
    return views.list(namespace);
  }

  /**
   * One page of the views of a namespace, by name (docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last view name, or null for the first page
   * @param size the page size, at least 1
   * @return the page; its cursor is a view name
   * @throws NoSuchNamespaceException if the namespace does not exist
   */
  public KeysetPage<TableIdentifier> listViews(Namespace namespace, String after, int size) {
    return views.list(namespace, after, size);
  }

  /**
   * Removes a view's entry and its location claim; its metadata files stay. Returns false if there
   * was no such view.
   */
  @Override
  public boolean dropView(TableIdentifier identifier) {
    return views.drop(identifier);
  }

  @Override
  public void renameView(TableIdentifier from, TableIdentifier to) {
    views.rename(from, to);
  }

  // ---- namespaces ----

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    namespaces.create(namespace, metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace parent) {
    return namespaces.list(parent);
  }

  /**
   * One page of the direct children of {@code parent}, by stored name
   * (docs/design/0403-keyset-catalog-listings.md).
   *
   * @param parent the parent, {@link Namespace#empty()} for the top level
   * @param after the previous page's last child, or null for the first page; a child of {@code parent}
   * @param size the page size, at least 1
   * @return the page; its cursor is the last child's last level
   * @throws NoSuchNamespaceException if {@code parent} is not empty and does not exist
   */
  public KeysetPage<Namespace> listNamespaces(Namespace parent, String after, int size) {
    return namespaces.list(parent, after, size);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    return namespaces.properties(namespace);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return namespaces.exists(namespace);
  }

  /**
   * Drops an empty namespace.
   *
   * @return false if it does not exist
   * @throws NamespaceNotEmptyException if it holds a table, a view, a retained (soft-deleted) table
   *     or a child namespace
   */
  @Override
  public boolean dropNamespace(Namespace namespace) {
    return namespaces.drop(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    return namespaces.setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    return namespaces.removeProperties(namespace, properties);
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      io.close();
    }
  }

  // ---- shared lookups (also used by the operations) ----

  /**
   * Refuses (409) a name held by a retained deletion (docs/design/0202-soft-deletion.md §3) or an active cleanup
   * job (docs/design/0201-cleanup-jobs.md §7) before any file is written.
   */
  private void checkNameFree(TableIdentifier identifier) {
    jdbi.useHandle(h -> Namespaces.find(h, catalog.catalogId(), identifier.namespace())
        .ifPresent(ns -> NameGuards.check(h, catalog.catalogId(), ns, identifier)));
  }
}
