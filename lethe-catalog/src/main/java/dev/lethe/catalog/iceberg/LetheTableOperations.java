package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.location.WriteConfinement;
import java.time.Clock;
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
 * compare-and-set (DESIGN.md "Entities and storage"), so a lost race is a {@link
 * CommitFailedException} (409) and never an overwrite; a table dropped meanwhile is a {@link
 * NoSuchTableException} (404).
 *
 * <p>Before any metadata file is written, the new metadata is checked against the catalog's
 * allowed locations ({@link WriteConfinement}; docs/design/0001-purge-confinement-and-ownership.md
 * §2): a refused location is a 400 and nothing is written. A registered metadata file must lie
 * inside the table's roots.
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
    refreshFromMetadataLocation(row.get().metadataLocation());
  }

  @Override
  protected void doCommit(TableMetadata base, TableMetadata metadata) {
    boolean newTable = base == null;
    // rule 1: refuse before anything is written (a location such as "file:/x?" must not overwrite /x)
    WriteConfinement.checkTable(allowed, base, metadata);
    if (newTable && metadata.metadataFileLocation() != null) {
      // a register: the file must lie inside the roots of the table it describes
      WriteConfinement.checkRegisteredMetadataFile(TableRoots.of(metadata), metadata.metadataFileLocation());
    }
    String newLocation = writeNewMetadataIfRequired(newTable, metadata);
    long now = clock.millis();
    if (newTable) {
      insert(newLocation, now);
    } else {
      jdbi.useTransaction(h -> swap(h, catalogId, identifier, base.metadataFileLocation(), newLocation, now));
    }
  }

  private void insert(String location, long now) {
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
        tables.insert(new TableRow(ids.get(), catalogId, ns.namespaceId(), identifier.name(), location, null, 0L, null, now, now));
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
    return writeNewMetadataIfRequired(false, metadata);
  }
}
