package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The table entries of one catalog, as {@link LetheCatalog} serves them: existence, listings, the
 * metadata-only drop, rename and the re-pointing of a registration over an existing table. Each is
 * one database read or one transaction; creates and commits go through {@link LetheTableOperations}.
 */
final class TableEntries {
  private final Jdbi jdbi;
  private final String catalogId;
  private final Clock clock;
  private final Namespaces namespaces;

  TableEntries(Jdbi jdbi, String catalogId, Clock clock, Namespaces namespaces) {
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.clock = clock;
    this.namespaces = namespaces;
  }

  boolean exists(TableIdentifier identifier) {
    return jdbi.withHandle(h -> Namespaces.find(h, catalogId, identifier.namespace())
        .flatMap(ns -> new TableDao(h).find(ns.namespaceId(), identifier.name()))
        .isPresent());
  }

  List<TableIdentifier> list(Namespace namespace) {
    return jdbi.withHandle(h -> {
      NamespaceRow ns = namespaces.require(h, namespace);
      return new TableDao(h).names(ns.namespaceId()).stream()
          .map(name -> TableIdentifier.of(namespace, name))
          .toList();
    });
  }

  KeysetPage<TableIdentifier> list(Namespace namespace, String after, int size) {
    return jdbi.withHandle(h -> new TableDao(h).namesPage(namespaces.require(h, namespace).namespaceId(), after, size))
        .map(name -> TableIdentifier.of(namespace, name));
  }

  /**
   * The drop without purge: the live entry and its location claims go in one transaction; every
   * file stays.
   *
   * @return false if no live table of that name exists
   */
  boolean dropEntry(TableIdentifier identifier) {
    return jdbi.inTransaction(h -> Namespaces.find(h, catalogId, identifier.namespace())
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
  }

  void rename(TableIdentifier from, TableIdentifier to) {
    EntityNames.checkIdentifier("table", to);
    if (from.equals(to)) {
      return;
    }
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow fromNs = Namespaces.find(h, catalogId, from.namespace())
            .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", from));
        TableDao tables = new TableDao(h);
        if (tables.find(fromNs.namespaceId(), from.name()).isEmpty()) {
          throw new NoSuchTableException("Table does not exist: %s", from);
        }
        NamespaceRow toNs = Namespaces.findForUpdate(h, catalogId, to.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace()));
        if (new ViewDao(h).find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. View already exists", from, to);
        }
        if (tables.find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Table already exists: %s", to);
        }
        NameGuards.check(h, catalogId, toNs, to);
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
   * Points an existing table's entry at a registered metadata file (checked by the caller), in one
   * transaction with the claims of its roots.
   *
   * @param expected the metadata location the entry must still hold
   */
  void repoint(TableIdentifier identifier, String expected, String metadataFileLocation, TableRoots roots) {
    long now = clock.millis();
    jdbi.useTransaction(h -> {
      String tableId = LetheTableOperations.swap(h, catalogId, identifier, expected, metadataFileLocation, now);
      // rule 2: the entry now holds the registered table's roots, unless another entry holds them
      LocationClaims.acquire(h, catalogId, ClaimOwner.table(tableId), roots.roots(), now, "Cannot register " + identifier);
    });
  }
}
