package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
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
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Table operations over the {@code lethe_table} row of one identifier: refresh reads the live row's
 * metadata location; commit writes the new metadata JSON and then swaps the location with a
 * compare-and-set (DESIGN.md "Entities and storage"), so a lost race is a {@link
 * CommitFailedException} (409) and never an overwrite.
 */
final class LetheTableOperations extends BaseMetastoreTableOperations {
  private final Jdbi jdbi;
  private final String catalogId;
  private final TableIdentifier identifier;
  private final FileIO io;
  private final Clock clock;
  private final Supplier<String> ids;

  LetheTableOperations(
      Jdbi jdbi, String catalogId, TableIdentifier identifier, FileIO io, Clock clock, Supplier<String> ids) {
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
    String newLocation = writeNewMetadataIfRequired(newTable, metadata);
    long now = clock.millis();
    if (newTable) {
      insert(newLocation, now);
    } else {
      swap(base.metadataFileLocation(), newLocation, now);
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

  private void swap(String expected, String next, long now) {
    int swapped = jdbi.withHandle(h -> LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
        .map(ns -> new TableDao(h).compareAndSetMetadataLocation(ns.namespaceId(), identifier.name(), expected, next, now))
        .orElse(0));
    if (swapped != 1) {
      throw new CommitFailedException(
          "Cannot commit %s: metadata location is no longer %s (another commit won, or the table was dropped)",
          identifier, expected);
    }
  }

  /** Writes the metadata of a staged multi-table commit and returns its location. */
  String writeMetadata(TableMetadata metadata) {
    return writeNewMetadataIfRequired(false, metadata);
  }
}
