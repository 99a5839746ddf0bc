package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.location.WriteConfinement;
import dev.lethe.catalog.jobs.TablePurge;
import dev.lethe.catalog.softdelete.RetainedNameGuard;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.BaseTable;
import java.util.regex.Pattern;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.RetryableValidationException;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.LocationUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.view.BaseMetastoreViewCatalog;
import org.apache.iceberg.view.ViewOperations;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
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
      properties.forEach((k, v) -> requireString("table property", k, v));
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
    boolean unique = PropertyUtil.propertyAsBoolean(catalog.properties(), UNIQUE_TABLE_LOCATION, true);
    // bounded to a file name's 255 bytes: every accepted name gets a directory (docs/design/0401)
    String dir = unique ? DirectoryNames.of(identifier.name(), "-" + ids.get().replace("-", ""))
        : DirectoryNames.of(identifier.name());
    return namespaceLocation(identifier.namespace()) + "/" + dir;
  }

  private String namespaceLocation(Namespace namespace) {
    Map<String, String> props = loadNamespaceMetadata(namespace);
    String location = props.get("location");
    if (location != null && !location.isEmpty()) {
      return stripTrailingSlash(location);
    }
    return stripTrailingSlash(catalog.warehouse()) + "/"
        + String.join("/", java.util.Arrays.stream(namespace.levels()).map(DirectoryNames::of).toList());
  }

  private static final Pattern TRAILING_SLASHES = Pattern.compile("/+$");

  /**
   * {@link LocationUtil#stripTrailingSlash}, keeping Lethe's answers where Iceberg's differ: the
   * root {@code "/"} (and any run of slashes) stays {@code "/"}, a bare {@code "scheme://"} loses
   * every trailing slash, and {@code ""} stays {@code ""} (docs/design/0220-library-plumbing.md
   * §Iceberg helpers).
   *
   * @param location a location, not null
   * @return the location without trailing slashes, never empty unless {@code location} is
   */
  static String stripTrailingSlash(String location) {
    if (location.isEmpty()) {
      return location;
    }
    String stripped = LocationUtil.stripTrailingSlash(location);
    if (stripped.isEmpty()) {
      return "/";
    }
    return stripped.endsWith("/") ? TRAILING_SLASHES.matcher(stripped).replaceFirst("") : stripped;
  }

  // ---- tables ----

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return jdbi.withHandle(h -> findNamespace(h, catalog.catalogId(), identifier.namespace())
        .flatMap(ns -> new TableDao(h).find(ns.namespaceId(), identifier.name()))
        .isPresent());
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return jdbi.withHandle(h -> {
      NamespaceRow ns = requireNamespace(h, namespace);
      return new TableDao(h).names(ns.namespaceId()).stream()
          .map(name -> TableIdentifier.of(namespace, name))
          .toList();
    });
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
    return jdbi.withHandle(h -> new TableDao(h).namesPage(requireNamespace(h, namespace).namespaceId(), after, size))
        .map(name -> TableIdentifier.of(namespace, name));
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
    boolean deleted = jdbi.inTransaction(h -> findNamespace(h, catalog.catalogId(), identifier.namespace())
        .map(ns -> {
          TableDao tables = new TableDao(h);
          Optional<TableRow> row = tables.findNameHolderForUpdate(ns.namespaceId(), identifier.name())
              .filter(r -> r.deletionId() == null);
          if (row.isEmpty() || tables.delete(ns.namespaceId(), identifier.name()) != 1) {
            return false;
          }
          LocationClaims.release(h, ClaimOwner.table(row.get().tableId()));
          return true;
        })
        .orElse(false));
    if (!deleted) {
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
    EntityNames.checkIdentifier("table", to);
    if (from.equals(to)) {
      return;
    }
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow fromNs = findNamespace(h, catalog.catalogId(), from.namespace())
            .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", from));
        TableDao tables = new TableDao(h);
        if (tables.find(fromNs.namespaceId(), from.name()).isEmpty()) {
          throw new NoSuchTableException("Table does not exist: %s", from);
        }
        NamespaceRow toNs = findNamespaceForUpdate(h, catalog.catalogId(), to.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace()));
        if (new ViewDao(h).find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. View already exists", from, to);
        }
        if (tables.find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Table already exists: %s", to);
        }
        NameGuards.check(h, catalog.catalogId(), toNs, to);
        if (tables.rename(fromNs.namespaceId(), from.name(), toNs.namespaceId(), to.name(), clock.millis()) != 1) {
          throw new NoSuchTableException("Table does not exist: %s", from);
        }
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "Table already exists: %s", to);
      }
      throw e;
    }
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
    TableOperations ops = newTableOps(identifier);
    TableMetadata current = ops.current();
    // fail before any change if unreadable, outside the allowed locations or outside its own roots
    TableMetadata next = RegisteredMetadata.readTable(ops.io(), identifier, metadataFileLocation);
    WriteConfinement.checkTable(allowed, null, next);
    TableRoots roots = TableRoots.of(next);
    WriteConfinement.checkRegisteredMetadataFile(roots, metadataFileLocation);
    String expected = current.metadataFileLocation();
    long now = clock.millis();
    jdbi.useTransaction(h -> {
      String tableId = LetheTableOperations.swap(h, catalog.catalogId(), identifier, expected, metadataFileLocation, now);
      // rule 2: the entry now holds the registered table's roots, unless another entry holds them
      LocationClaims.acquire(h, catalog.catalogId(), ClaimOwner.table(tableId), roots.roots(), now, "Cannot register " + identifier);
    });
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
    record Planned(LetheTableOperations ops, TableIdentifier id, TableMetadata base, TableMetadata updated) {}
    record Staged(TableIdentifier id, String expected, String next, LetheTableOperations.ClaimChange claims) {}
    List<Planned> planned = new ArrayList<>();
    for (TableCommit commit : commits) {
      LetheTableOperations ops = (LetheTableOperations) newTableOps(commit.identifier());
      TableMetadata base = ops.current();
      if (base == null) {
        throw new NoSuchTableException("Table does not exist: %s", commit.identifier());
      }
      for (UpdateRequirement requirement : commit.requirements()) {
        requirement.validate(base);
      }
      TableMetadata.Builder builder = TableMetadata.buildFrom(base);
      try {
        for (MetadataUpdate update : commit.updates()) {
          update.applyTo(builder);
        }
      } catch (RetryableValidationException e) {
        throw new CommitFailedException(e, "Validation failed, please retry: %s", e.getMessage());
      }
      TableMetadata updated = builder.build();
      if (!updated.changes().isEmpty()) {
        // rule 1 for every table before any metadata file is written
        WriteConfinement.checkTable(allowed, base, updated);
        planned.add(new Planned(ops, commit.identifier(), base, updated));
      }
    }
    List<Staged> staged = new ArrayList<>();
    for (Planned p : planned) {
      // docs/design/0004-a-table-owns-every-root-its-snapshots-use.md
      LetheTableOperations.ClaimChange claims = p.ops().planClaims(p.base(), p.updated(), "Cannot commit " + p.id());
      staged.add(new Staged(p.id(), p.base().metadataFileLocation(), p.ops().writeMetadata(p.base(), p.updated()), claims));
    }
    long now = clock.millis();
    jdbi.useTransaction(h -> {
      List<String> tableIds = new ArrayList<>();
      for (Staged s : staged) {
        tableIds.add(LetheTableOperations.swap(h, catalog.catalogId(), s.id(), s.expected(), s.next(), now));
      }
      // claims after every row lock (lock order); roots that moved are claimed together
      for (int i = 0; i < staged.size(); i++) {
        LetheTableOperations.applyClaims(h, catalog.catalogId(), tableIds.get(i), staged.get(i).claims(), now, "Cannot commit " + staged.get(i).id());
      }
    });
  }

  // ---- views ----

  @Override
  public boolean viewExists(TableIdentifier identifier) {
    return jdbi.withHandle(h -> findNamespace(h, catalog.catalogId(), identifier.namespace())
        .flatMap(ns -> new ViewDao(h).find(ns.namespaceId(), identifier.name()))
        .isPresent());
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
    return jdbi.withHandle(h -> {
      NamespaceRow ns = requireNamespace(h, namespace);
      return new ViewDao(h).names(ns.namespaceId()).stream()
          .map(name -> TableIdentifier.of(namespace, name))
          .toList();
    });
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
    return jdbi.withHandle(h -> new ViewDao(h).namesPage(requireNamespace(h, namespace).namespaceId(), after, size))
        .map(name -> TableIdentifier.of(namespace, name));
  }

  /**
   * Removes a view's entry and its location claim; its metadata files stay. Returns false if there
   * was no such view.
   */
  @Override
  public boolean dropView(TableIdentifier identifier) {
    return jdbi.inTransaction(h -> findNamespace(h, catalog.catalogId(), identifier.namespace())
        .map(ns -> {
          ViewDao views = new ViewDao(h);
          Optional<ViewRow> row = views.find(ns.namespaceId(), identifier.name());
          if (row.isEmpty() || views.delete(ns.namespaceId(), identifier.name()) != 1) {
            return false;
          }
          LocationClaims.release(h, ClaimOwner.view(row.get().viewId()));
          return true;
        })
        .orElse(false));
  }

  @Override
  public void renameView(TableIdentifier from, TableIdentifier to) {
    EntityNames.checkIdentifier("view", to);
    if (from.equals(to)) {
      return;
    }
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow fromNs = findNamespace(h, catalog.catalogId(), from.namespace())
            .orElseThrow(() -> new NoSuchViewException("View does not exist: %s", from));
        ViewDao views = new ViewDao(h);
        if (views.find(fromNs.namespaceId(), from.name()).isEmpty()) {
          throw new NoSuchViewException("View does not exist: %s", from);
        }
        NamespaceRow toNs = findNamespaceForUpdate(h, catalog.catalogId(), to.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace()));
        if (new TableDao(h).find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. Table already exists", from, to);
        }
        if (views.find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. View already exists", from, to);
        }
        NameGuards.check(h, catalog.catalogId(), toNs, to);
        if (views.rename(fromNs.namespaceId(), from.name(), toNs.namespaceId(), to.name(), clock.millis()) != 1) {
          throw new NoSuchViewException("View does not exist: %s", from);
        }
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "View already exists: %s", to);
      }
      throw e;
    }
  }

  // ---- namespaces ----

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    EntityNames.checkNamespace(namespace);
    checkProperties(metadata == null ? Map.of() : metadata);
    WriteConfinement.checkNamespaceLocation(allowed, metadata);
    long now = clock.millis();
    try {
      jdbi.useTransaction(h -> {
        NamespaceDao namespaces = new NamespaceDao(h);
        String name = NamespaceNames.encode(namespace);
        if (namespaces.find(catalog.catalogId(), name).isPresent()) {
          throw new AlreadyExistsException("Namespace already exists: %s", namespace);
        }
        namespaces.insert(new NamespaceRow(ids.get(), catalog.catalogId(), name, NamespaceNames.parentOf(namespace),
            metadata == null ? Map.of() : metadata, now, now));
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "Namespace already exists: %s", namespace);
      }
      throw e;
    }
  }

  @Override
  public List<Namespace> listNamespaces(Namespace parent) {
    return jdbi.withHandle(h -> {
      if (!parent.isEmpty()) {
        requireNamespace(h, parent);
      }
      return new NamespaceDao(h).listChildren(catalog.catalogId(), NamespaceNames.encode(parent)).stream()
          .map(row -> NamespaceNames.decode(row.name()))
          .toList();
    });
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
    String parentName = NamespaceNames.encode(parent);
    String afterName = after == null ? null : parent.isEmpty() ? after : parentName + NamespaceNames.SEPARATOR + after;
    KeysetPage<Namespace> page = jdbi.withHandle(h -> {
      if (!parent.isEmpty()) {
        requireNamespace(h, parent);
      }
      return new NamespaceDao(h).listChildrenPage(catalog.catalogId(), parentName, afterName, size)
          .map(row -> NamespaceNames.decode(row.name()));
    });
    // the cursor handed out is the child's own level: the parent is the listing's scope, not its key
    return new KeysetPage<>(page.items(), page.next().map(name -> {
      Namespace last = NamespaceNames.decode(name);
      return last.level(last.length() - 1);
    }));
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    return jdbi.withHandle(h -> requireNamespace(h, namespace).properties());
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return !namespace.isEmpty() && jdbi.withHandle(h -> findNamespace(h, catalog.catalogId(), namespace).isPresent());
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
    if (namespace.isEmpty()) {
      return false;
    }
    return jdbi.inTransaction(h -> {
      Optional<NamespaceRow> row = findNamespaceForUpdate(h, catalog.catalogId(), namespace);
      if (row.isEmpty()) {
        return false;
      }
      String id = row.get().namespaceId();
      if (new TableDao(h).any(id)) {
        throw new NamespaceNotEmptyException("Namespace %s is not empty: it contains tables", namespace);
      }
      if (new ViewDao(h).any(id)) {
        throw new NamespaceNotEmptyException("Namespace %s is not empty: it contains views", namespace);
      }
      RetainedNameGuard.checkNamespaceDrop(h, id, namespace);
      NamespaceDao namespaces = new NamespaceDao(h);
      if (!namespaces.listChildren(catalog.catalogId(), row.get().name()).isEmpty()) {
        throw new NamespaceNotEmptyException("Namespace %s is not empty: it contains namespaces", namespace);
      }
      return namespaces.delete(id) == 1;
    });
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    checkProperties(properties);
    WriteConfinement.checkNamespaceLocation(allowed, properties);
    return changeProperties(namespace, props -> props.putAll(properties));
  }

  /** A property's key and value are strings: a JSON null in either is a 400 (IllegalArgumentException). */
  private static void requireString(String what, String key, String value) {
    if (key == null || value == null) {
      throw new IllegalArgumentException("Invalid " + what + " " + key + ": null" + (key == null ? " key" : " value")
          + "; a key and its value are strings (unset a property through its removals)");
    }
  }

  /** Well-formed keys and values that fit the properties column (400 before any write). */
  private static void checkProperties(Map<String, String> properties) {
    properties.forEach((k, v) -> {
      requireString("namespace property", k, v);
      WellFormedText.check("namespace property key", k);
      WellFormedText.check("value of namespace property " + k, v);
    });
    ColumnLimits.checkNamespaceProperties(properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    if (properties.stream().anyMatch(java.util.Objects::isNull)) {
      throw new IllegalArgumentException("Invalid namespace property removal: null; a removal names a property key");
    }
    return changeProperties(namespace, props -> props.keySet().removeAll(properties));
  }

  private boolean changeProperties(Namespace namespace, java.util.function.Consumer<Map<String, String>> change) {
    return jdbi.inTransaction(h -> {
      NamespaceRow row = findNamespaceForUpdate(h, catalog.catalogId(), namespace)
          .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", namespace));
      Map<String, String> props = new HashMap<>(row.properties());
      change.accept(props);
      if (props.equals(row.properties())) {
        return false;
      }
      checkProperties(props);
      return new NamespaceDao(h).updateProperties(row.namespaceId(), props, clock.millis()) == 1;
    });
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
    jdbi.useHandle(h -> findNamespace(h, catalog.catalogId(), identifier.namespace())
        .ifPresent(ns -> NameGuards.check(h, catalog.catalogId(), ns, identifier)));
  }

  static Optional<NamespaceRow> findNamespace(Handle h, String catalogId, Namespace namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    return new NamespaceDao(h).find(catalogId, NamespaceNames.encode(namespace));
  }

  static Optional<NamespaceRow> findNamespaceForUpdate(Handle h, String catalogId, Namespace namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    return new NamespaceDao(h).findForUpdate(catalogId, NamespaceNames.encode(namespace));
  }

  private NamespaceRow requireNamespace(Handle h, Namespace namespace) {
    return findNamespace(h, catalog.catalogId(), namespace)
        .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", namespace));
  }
}
