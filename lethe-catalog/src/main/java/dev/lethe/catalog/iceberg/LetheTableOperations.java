package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.location.WriteConfinement;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Table operations over the {@code lethe_table} row of one identifier: refresh reads the live row's
 * metadata location; commit writes the new metadata JSON and then swaps the location with a
 * compare-and-set (docs/design/0200-catalog-architecture.md "Entities and storage"), so a lost race is a {@link
 * CommitFailedException} (409) and never an overwrite; a table dropped meanwhile is a {@link
 * NoSuchTableException} (404).
 *
 * <p>Before any metadata file is written, the new metadata is checked against the catalog's
 * allowed locations ({@link WriteConfinement}; docs/design/0001-purge-confinement-and-ownership.md
 * §2): a refused location is a 400 and nothing is written. A registered metadata file must lie
 * inside the table's roots.
 *
 * <p>A create, a register and a commit that changes the table's roots make the table hold them
 * ({@link LocationClaims}, rule 2): refused with 409 naming the other entry when another entry that
 * can become live overlaps them, checked once before the metadata file is written and again under
 * the claims lock in the transaction that inserts or swaps the row.
 */
final class LetheTableOperations extends BaseMetastoreTableOperations {
  private final Jdbi jdbi;
  private final String catalogId;
  private final TableIdentifier identifier;
  private final FileIO io;
  private final Clock clock;
  private final Supplier<String> ids;
  private final AllowedLocations allowed;

  LetheTableOperations(Jdbi jdbi, String catalogId, TableIdentifier identifier, FileIO io, Clock clock,
      Supplier<String> ids, AllowedLocations allowed) {
    this.allowed = allowed;
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.identifier = identifier;
    this.io = io;
    this.clock = clock;
    this.ids = ids;
  }

  @Override
  protected String tableName() {
    return identifier.toString();
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  protected void doRefresh() {
    Optional<TableRow> row = jdbi.withHandle(h -> LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
        .flatMap(ns -> new TableDao(h).findLive(ns.namespaceId(), identifier.name())));
    if (row.isEmpty()) {
      if (currentMetadataLocation() != null) {
        throw new NoSuchTableException("Table does not exist: %s (dropped by another client)", identifier);
      }
      disableRefresh();
      return;
    }
    // a corrupt metadata file fails at once instead of in Iceberg's 90 s retry loop (MetadataReadRetry)
    refreshFromMetadataLocation(row.get().metadataLocation(), MetadataReadRetry::shouldRetry, 20);
  }

  @Override
  protected void doCommit(TableMetadata base, TableMetadata metadata) {
    boolean newTable = base == null;
    boolean register = newTable && metadata.metadataFileLocation() != null;
    String refusal = register ? "Cannot register " + identifier
        : newTable ? "Cannot create table " + identifier : "Cannot commit " + identifier;
    // rule 1: refuse before anything is written (a location such as "file:/x?" must not overwrite /x)
    WriteConfinement.checkTable(allowed, base, metadata);
    checkColumnLimits(register, metadata, refusal);
    List<LocationPath> roots = null;
    TableRoots tableRoots = null;
    if (newTable || WriteConfinement.rootsChanged(base, metadata)) {
      tableRoots = TableRoots.of(metadata);
      if (register) {
        // the file must lie inside the roots of the table it describes
        WriteConfinement.checkRegisteredMetadataFile(tableRoots, metadata.metadataFileLocation());
      }
      roots = tableRoots.roots();
      // rule 2, early: no metadata file is written into a location another entry holds
      List<LocationPath> wanted = roots;
      jdbi.useHandle(h -> LocationClaims.precheck(h, newTable ? null : liveOwner(h).orElse(null), wanted, refusal));
    }
    String newLocation = writeNewMetadataIfRequired(newTable, metadata);
    if (tableRoots != null && !register) {
      // Iceberg writes it under the location or write.metadata.path, so inside a root; never point at one that is not
      tableRoots.checkMetadataFile(newLocation);
    }
    long now = clock.millis();
    if (newTable) {
      insert(newLocation, now, roots, refusal);
    } else {
      List<LocationPath> changed = roots;
      jdbi.useTransaction(h -> {
        String tableId = swap(h, catalogId, identifier, base.metadataFileLocation(), newLocation, now);
        if (changed != null) {
          LocationClaims.acquire(h, ClaimOwner.table(tableId), changed, now, refusal);
        }
      });
    }
  }

  /**
   * Column limits before any file is written (docs/design/0401-name-and-column-limits.md): the
   * metadata file this commit writes (its longest possible name) or registers must fit {@code
   * metadata_location}, and each root must fit a claim's {@code root}; otherwise the row could not be
   * stored and the file written first would be left behind.
   */
  private void checkColumnLimits(boolean register, TableMetadata metadata, String refusal) {
    ColumnLimits.checkMetadataLocation(refusal, register ? metadata.metadataFileLocation()
        : metadataFileLocation(metadata, LONGEST_METADATA_FILE_NAME));
    for (LocationPath root : TableRoots.of(metadata).roots()) {
      ColumnLimits.checkClaimRoot(refusal, root.toString());
    }
  }

  /** Longer than any {@code <version>-<uuid>[.gz].metadata.json} Iceberg names a metadata file. */
  static final String LONGEST_METADATA_FILE_NAME = "x".repeat(64);

  private Optional<ClaimOwner> liveOwner(Handle h) {
    return LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
        .flatMap(ns -> new TableDao(h).findLive(ns.namespaceId(), identifier.name()))
        .map(row -> ClaimOwner.table(row.tableId()));
  }

  private void insert(String location, long now, List<LocationPath> roots, String refusal) {
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow ns = LetheCatalog.findNamespaceForUpdate(h, catalogId, identifier.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException(
                "Cannot create table %s: namespace does not exist: %s", identifier, identifier.namespace()));
        if (new ViewDao(h).find(ns.namespaceId(), identifier.name()).isPresent()) {
          throw new AlreadyExistsException("View with same name already exists: %s", identifier);
        }
        TableDao tables = new TableDao(h);
        if (tables.findLive(ns.namespaceId(), identifier.name()).isPresent()) {
          throw new AlreadyExistsException("Table already exists: %s", identifier);
        }
        NameGuards.check(h, catalogId, ns, identifier);
        String tableId = ids.get();
        tables.insert(new TableRow(tableId, catalogId, ns.namespaceId(), identifier.name(), location, null, 0L, null, now, now));
        // rule 2, last lock of the transaction: the new table holds its roots or nothing is created
        LocationClaims.acquire(h, ClaimOwner.table(tableId), roots, now, refusal);
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "Table already exists: %s", identifier);
      }
      throw e;
    }
  }

  /**
   * The commit's compare-and-set inside the caller's transaction (it row-locks the table).
   *
   * @return the {@code table_id} of the swapped row
   * @throws NoSuchTableException if the table (or its namespace) is gone: a drop won the race
   * @throws CommitFailedException if another commit won
   */
  static String swap(Handle h, String catalogId, TableIdentifier identifier, String expected, String next, long now) {
    Optional<NamespaceRow> ns = LetheCatalog.findNamespace(h, catalogId, identifier.namespace());
    TableDao tables = new TableDao(h);
    int swapped = ns.map(n -> tables.compareAndSetMetadataLocation(n.namespaceId(), identifier.name(), expected, next, now))
        .orElse(0);
    Optional<TableRow> live = ns.flatMap(n -> tables.findLive(n.namespaceId(), identifier.name()));
    if (swapped == 1 && live.isPresent()) {
      return live.get().tableId();
    }
    if (live.isEmpty()) {
      throw new NoSuchTableException("Cannot commit %s: the table was dropped", identifier);
    }
    throw new CommitFailedException("Cannot commit %s: metadata location is no longer %s (another commit won)",
        identifier, expected);
  }

  /**
   * Checks and writes the metadata of a staged multi-table commit and returns its location.
   *
   * @throws dev.lethe.catalog.location.InvalidLocationException if the commit sets a refused location
   */
  String writeMetadata(TableMetadata base, TableMetadata metadata) {
    WriteConfinement.checkTable(allowed, base, metadata);
    checkColumnLimits(false, metadata, "Cannot commit " + identifier);
    return writeNewMetadataIfRequired(false, metadata);
  }
}
