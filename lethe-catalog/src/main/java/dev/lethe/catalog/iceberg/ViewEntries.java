package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The view entries of one catalog, beside {@link TableEntries}: existence, listings, the drop of
 * an entry (its metadata files stay) and rename. Creates, replaces and commits go through {@link
 * LetheViewOperations}.
 */
final class ViewEntries {
  private final Jdbi jdbi;
  private final String catalogId;
  private final Clock clock;
  private final Namespaces namespaces;

  ViewEntries(Jdbi jdbi, String catalogId, Clock clock, Namespaces namespaces) {
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.clock = clock;
    this.namespaces = namespaces;
  }

  boolean exists(TableIdentifier identifier) {
    return jdbi.withHandle(h -> Namespaces.find(h, catalogId, identifier.namespace())
        .flatMap(ns -> new ViewDao(h).find(ns.namespaceId(), identifier.name()))
        .isPresent());
  }

  List<TableIdentifier> list(Namespace namespace) {
    return jdbi.withHandle(h -> {
      NamespaceRow ns = namespaces.require(h, namespace);
      return new ViewDao(h).names(ns.namespaceId()).stream()
          .map(name -> TableIdentifier.of(namespace, name))
          .toList();
    });
  }

  KeysetPage<TableIdentifier> list(Namespace namespace, String after, int size) {
    return jdbi.withHandle(h -> new ViewDao(h).namesPage(namespaces.require(h, namespace).namespaceId(), after, size))
        .map(name -> TableIdentifier.of(namespace, name));
  }

  /** The entry and its location claim go in one transaction; false if there was no such view. */
  boolean drop(TableIdentifier identifier) {
    return jdbi.inTransaction(h -> Namespaces.find(h, catalogId, identifier.namespace())
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

  void rename(TableIdentifier from, TableIdentifier to) {
    EntityNames.checkIdentifier("view", to);
    if (from.equals(to)) {
      return;
    }
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow fromNs = Namespaces.find(h, catalogId, from.namespace())
            .orElseThrow(() -> new NoSuchViewException("View does not exist: %s", from));
        ViewDao views = new ViewDao(h);
        if (views.find(fromNs.namespaceId(), from.name()).isEmpty()) {
          throw new NoSuchViewException("View does not exist: %s", from);
        }
        NamespaceRow toNs = Namespaces.findForUpdate(h, catalogId, to.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace()));
        if (new TableDao(h).find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. Table already exists", from, to);
        }
        if (views.find(toNs.namespaceId(), to.name()).isPresent()) {
          throw new AlreadyExistsException("Cannot rename %s to %s. View already exists", from, to);
        }
        NameGuards.check(h, catalogId, toNs, to);
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
}
