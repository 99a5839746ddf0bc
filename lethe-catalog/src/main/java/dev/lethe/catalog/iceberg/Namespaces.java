package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.WriteConfinement;
import dev.lethe.catalog.softdelete.RetainedNameGuard;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The namespaces of one catalog: {@link LetheCatalog}'s {@code SupportsNamespaces} half, their
 * properties and the lookups every entry operation starts from (docs/design/0200-catalog-architecture.md
 * "Entities and storage"). A namespace drops only when it holds no table, view, retained table or
 * child namespace.
 */
final class Namespaces {
  private final Jdbi jdbi;
  private final String catalogId;
  private final Clock clock;
  private final Supplier<String> ids;
  private final AllowedLocations allowed;

  Namespaces(Jdbi jdbi, String catalogId, Clock clock, Supplier<String> ids, AllowedLocations allowed) {
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.clock = clock;
    this.ids = ids;
    this.allowed = allowed;
  }

  void create(Namespace namespace, Map<String, String> metadata) {
    EntityNames.checkNamespace(namespace);
    checkProperties(metadata == null ? Map.of() : metadata);
    WriteConfinement.checkNamespaceLocation(allowed, metadata);
    long now = clock.millis();
    try {
      jdbi.useTransaction(h -> {
        NamespaceDao namespaces = new NamespaceDao(h);
        String name = NamespaceNames.encode(namespace);
        if (namespaces.find(catalogId, name).isPresent()) {
          throw new AlreadyExistsException("Namespace already exists: %s", namespace);
        }
        namespaces.insert(new NamespaceRow(ids.get(), catalogId, name, NamespaceNames.parentOf(namespace),
            metadata == null ? Map.of() : metadata, now, now));
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "Namespace already exists: %s", namespace);
      }
      throw e;
    }
  }

  List<Namespace> list(Namespace parent) {
    return jdbi.withHandle(h -> {
      if (!parent.isEmpty()) {
        require(h, parent);
      }
      return new NamespaceDao(h).listChildren(catalogId, NamespaceNames.encode(parent)).stream()
          .map(row -> NamespaceNames.decode(row.name()))
          .toList();
    });
  }

  /** {@link LetheCatalog#listNamespaces(Namespace, String, int)}. */
  KeysetPage<Namespace> list(Namespace parent, String after, int size) {
    String parentName = NamespaceNames.encode(parent);
    String afterName = after == null ? null : parent.isEmpty() ? after : parentName + NamespaceNames.SEPARATOR + after;
    KeysetPage<Namespace> page = jdbi.withHandle(h -> {
      if (!parent.isEmpty()) {
        require(h, parent);
      }
      return new NamespaceDao(h).listChildrenPage(catalogId, parentName, afterName, size)
          .map(row -> NamespaceNames.decode(row.name()));
    });
    // the cursor handed out is the child's own level: the parent is the listing's scope, not its key
    return new KeysetPage<>(page.items(), page.next().map(name -> {
      Namespace last = NamespaceNames.decode(name);
      return last.level(last.length() - 1);
    }));
  }

  Map<String, String> properties(Namespace namespace) {
    return jdbi.withHandle(h -> require(h, namespace).properties());
  }

  boolean exists(Namespace namespace) {
    return !namespace.isEmpty() && jdbi.withHandle(h -> find(h, catalogId, namespace).isPresent());
  }

  /** {@link LetheCatalog#dropNamespace}. */
  boolean drop(Namespace namespace) {
    if (namespace.isEmpty()) {
      return false;
    }
    return jdbi.inTransaction(h -> {
      Optional<NamespaceRow> row = findForUpdate(h, catalogId, namespace);
      if (row.isEmpty()) {
        return false;
      }
      String id = row.get().namespaceId();
      // a protection is named before emptiness: docs/design/0441-drop-protection.md
      new ProtectionDao(h).check(ProtectionDao.Kind.NAMESPACE, id, "");
      if (new TableDao(h).any(id)) {
        throw new NamespaceNotEmptyException("Namespace %s is not empty: it contains tables", namespace);
      }
      if (new ViewDao(h).any(id)) {
        throw new NamespaceNotEmptyException("Namespace %s is not empty: it contains views", namespace);
      }
      RetainedNameGuard.checkNamespaceDrop(h, id, namespace);
      NamespaceDao namespaces = new NamespaceDao(h);
      if (!namespaces.listChildren(catalogId, row.get().name()).isEmpty()) {
        throw new NamespaceNotEmptyException("Namespace %s is not empty: it contains namespaces", namespace);
      }
      return namespaces.delete(id) == 1;
    });
  }

  boolean setProperties(Namespace namespace, Map<String, String> properties) {
    checkProperties(properties);
    WriteConfinement.checkNamespaceLocation(allowed, properties);
    return changeProperties(namespace, props -> props.putAll(properties));
  }

  boolean removeProperties(Namespace namespace, Set<String> properties) {
    if (properties.stream().anyMatch(Objects::isNull)) {
      throw new IllegalArgumentException("Invalid namespace property removal: null; a removal names a property key");
    }
    return changeProperties(namespace, props -> props.keySet().removeAll(properties));
  }

  private boolean changeProperties(Namespace namespace, Consumer<Map<String, String>> change) {
    return jdbi.inTransaction(h -> {
      NamespaceRow row = findForUpdate(h, catalogId, namespace)
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

  /** A property's key and value are strings: a JSON null in either is a 400 (IllegalArgumentException). */
  static void requireString(String what, String key, String value) {
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

  /** The namespace's row, read on {@code h}; the empty namespace has none. */
  static Optional<NamespaceRow> find(Handle h, String catalogId, Namespace namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    return new NamespaceDao(h).find(catalogId, NamespaceNames.encode(namespace));
  }

  /** {@link #find}, row-locking the namespace (the lock a create or rename into it takes first). */
  static Optional<NamespaceRow> findForUpdate(Handle h, String catalogId, Namespace namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    return new NamespaceDao(h).findForUpdate(catalogId, NamespaceNames.encode(namespace));
  }

  /** @throws NoSuchNamespaceException if the namespace does not exist */
  NamespaceRow require(Handle h, Namespace namespace) {
    return find(h, catalogId, namespace)
        .orElseThrow(() -> new NoSuchNamespaceException("Namespace does not exist: %s", namespace));
  }
}
