package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.EntryDao;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.location.LocationClaims;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The table or view entries of one catalog, as {@link LetheCatalog} serves them: existence,
 * listings, the drop of an entry (its files stay) and rename, each one database read or one
 * transaction. {@link EntryOperations.Kind} and the two differences below are all that tells a
 * table from a view here; creates and commits go through {@link LetheTableOperations} and {@link
 * LetheViewOperations}.
 *
 * @param <R> the row record
 */
final class Entries<R> {
  /** The row a drop removes, looked up in the drop's transaction. */
  interface DropHolder<R> {
    Optional<R> find(Handle h, String namespaceId, String name);
  }

  /** The 409 of a rename onto a name an entry of the same kind holds. */
  interface RenameTaken {
    AlreadyExistsException refuse(TableIdentifier from, TableIdentifier to);
  }

  private final EntryOperations.Kind<R> kind;
  private final DropHolder<R> dropHolder;
  private final RenameTaken renameTaken;
  private final Jdbi jdbi;
  private final String catalogId;
  private final Clock clock;
  private final Namespaces namespaces;

  private Entries(EntryOperations.Kind<R> kind, DropHolder<R> dropHolder, RenameTaken renameTaken, Jdbi jdbi,
      String catalogId, Clock clock, Namespaces namespaces) {
    this.kind = kind;
    this.dropHolder = dropHolder;
    this.renameTaken = renameTaken;
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.clock = clock;
    this.namespaces = namespaces;
  }

  /** Tables: a drop removes the live row holding the name (locked); a rename onto a table says so. */
  static Entries<TableRow> tables(Jdbi jdbi, String catalogId, Clock clock, Namespaces namespaces) {
    return new Entries<>(EntryOperations.Kind.TABLE,
        (h, ns, name) -> new TableDao(h).findNameHolderForUpdate(ns, name).filter(r -> r.deletionId() == null),
        (from, to) -> new AlreadyExistsException("Table already exists: %s", to),
        jdbi, catalogId, clock, namespaces);
  }

  /** Views: a drop removes the view of that name; a rename onto a view names both. */
  static Entries<ViewRow> views(Jdbi jdbi, String catalogId, Clock clock, Namespaces namespaces) {
    return new Entries<>(EntryOperations.Kind.VIEW,
        (h, ns, name) -> new ViewDao(h).find(ns, name),
        (from, to) -> new AlreadyExistsException("Cannot rename %s to %s. View already exists", from, to),
        jdbi, catalogId, clock, namespaces);
  }

  boolean exists(TableIdentifier identifier) {
    return jdbi.withHandle(h -> Namespaces.find(h, catalogId, identifier.namespace())
        .flatMap(ns -> kind.dao().apply(h).find(ns.namespaceId(), identifier.name()))
        .isPresent());
  }

  List<TableIdentifier> list(Namespace namespace) {
    return jdbi.withHandle(h -> {
      NamespaceRow ns = namespaces.require(h, namespace);
      return kind.dao().apply(h).names(ns.namespaceId()).stream()
          .map(name -> TableIdentifier.of(namespace, name))
          .toList();
    });
  }

  KeysetPage<TableIdentifier> list(Namespace namespace, String after, int size) {
    return jdbi.withHandle(h -> kind.dao().apply(h).namesPage(namespaces.require(h, namespace).namespaceId(), after, size))
        .map(name -> TableIdentifier.of(namespace, name));
  }

  /**
   * The entry and its location claims go in one transaction; every file stays.
   *
   * @return false if there was no such entry (for a table: no live one)
   */
  boolean drop(TableIdentifier identifier) {
    return jdbi.inTransaction(h -> Namespaces.find(h, catalogId, identifier.namespace())
        .map(ns -> {
          Optional<R> row = dropHolder.find(h, ns.namespaceId(), identifier.name());
          if (row.isEmpty() || kind.dao().apply(h).delete(ns.namespaceId(), identifier.name()) != 1) {
            return false;
          }
          LocationClaims.release(h, kind.owner().apply(kind.id().apply(row.get())));
          return true;
        })
        .orElse(false));
  }

  void rename(TableIdentifier from, TableIdentifier to) {
    EntityNames.checkIdentifier(kind.word(), to);
    if (from.equals(to)) {
      return;
    }
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow fromNs = Namespaces.find(h, catalogId, from.namespace())
            .orElseThrow(() -> noSuch(from));
        EntryDao<R> entries = kind.dao().apply(h);
        if (entries.find(fromNs.namespaceId(), from.name()).isEmpty()) {
          throw noSuch(from);
        }
        NamespaceRow toNs = Namespaces.findForUpdate(h, catalogId, to.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace()));
        EntryOperations.Kind<?> other = kind.other();
        if (other.dao().apply(h).find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. " + other.title() + " already exists", from, to);
        }
        if (entries.find(toNs.namespaceId(), to.name()).isPresent()) {
          throw renameTaken.refuse(from, to);
        }
        NameGuards.check(h, catalogId, toNs, to);
        if (entries.rename(fromNs.namespaceId(), from.name(), toNs.namespaceId(), to.name(), clock.millis()) != 1) {
          throw noSuch(from);
        }
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, kind.title() + " already exists: %s", to);
      }
      throw e;
    }
  }

  private RuntimeException noSuch(TableIdentifier id) {
    return kind.noSuch().apply(kind.title() + " does not exist: %s", new Object[] {id});
  }
}
