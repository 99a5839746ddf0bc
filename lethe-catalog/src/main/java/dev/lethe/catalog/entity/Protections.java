package dev.lethe.catalog.entity;

import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Sets, clears and lists drop protections (docs/design/0441-drop-protection.md), each in its own
 * transaction; the check itself is {@link ProtectionDao#check}, which every drop runs. Thread-safe.
 */
public final class Protections {
  private final CatalogDatabase database;
  private final Clock clock;

  public Protections(CatalogDatabase database, Clock clock) {
    this.database = database;
    this.clock = clock;
  }

  /** The catalog's protections, by kind, namespace and name. */
  public List<ProtectionDao.Protection> list(String catalogId) {
    return database.jdbi().withHandle(h -> new ProtectionDao(h).list(catalogId));
  }

  /**
   * Protects the object (replacing a protection on it), now, by {@code setBy}.
   *
   * @param namespace stored namespace name (levels joined by U+001F), not empty
   * @param name the entry's name; {@code ""} for a namespace
   * @param reason why; not null, at most 1024 characters
   * @return the protection as stored, and whether the object it names exists now (looked up in the
   *     same transaction, read-only: a protection may name an object not created yet)
   * @throws IllegalArgumentException on an empty namespace, a missing or extra name, or a reason too long
   */
  public Protected protect(String catalogId, ProtectionDao.Kind kind, String namespace, String name,
      String setBy, String reason) {
    validate(kind, namespace, name);
    if (reason.length() > 1024) {
      throw new IllegalArgumentException("Invalid reason: at most 1024 characters, got " + reason.length());
    }
    ProtectionDao.Protection p = new ProtectionDao.Protection(kind, namespace, name, setBy, clock.millis(), reason);
    // two admins setting one new protection at once both find no row and both insert: the loser's
    // key violation (or deadlock) is a lost race, and a second transaction updates the winner's row
    for (int attempt = 1; ; attempt++) {
      try {
        return database.jdbi().inTransaction(h -> new Protected(new ProtectionDao(h).put(catalogId, p),
            exists(h, catalogId, kind, namespace, name)));
      } catch (UnableToExecuteStatementException e) {
        if (attempt >= 5 || !lostRace(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * A protection as stored, and whether its object existed when it was set (a live table, a view, a
   * namespace of that name; docs/design/0441-drop-protection.md "Exact names").
   */
  public record Protected(ProtectionDao.Protection protection, boolean exists) {}

  private static boolean exists(Handle h, String catalogId, ProtectionDao.Kind kind, String namespace, String name) {
    Optional<NamespaceRow> ns = new NamespaceDao(h).find(catalogId, namespace);
    return switch (kind) {
      case NAMESPACE -> ns.isPresent();
      case TABLE -> ns.flatMap(n -> new TableDao(h).find(n.namespaceId(), name)).isPresent();
      case VIEW -> ns.flatMap(n -> new ViewDao(h).find(n.namespaceId(), name)).isPresent();
    };
  }

  private static boolean lostRace(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("23") || sql.getSQLState().equals("40001"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Clears the protection on the object.
   *
   * @return the protection as it was stored; empty when there was none
   */
  public Optional<ProtectionDao.Protection> unprotect(String catalogId, ProtectionDao.Kind kind, String namespace,
      String name) {
    validate(kind, namespace, name);
    return database.jdbi().inTransaction(h -> new ProtectionDao(h).clear(catalogId, kind, namespace, name));
  }

  private static void validate(ProtectionDao.Kind kind, String namespace, String name) {
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("Invalid protection: namespace must not be empty");
    }
    if (kind == ProtectionDao.Kind.NAMESPACE ? !name.isEmpty() : name.isEmpty()) {
      throw new IllegalArgumentException(kind == ProtectionDao.Kind.NAMESPACE
          ? "Invalid protection: a namespace protection takes no name"
          : "Invalid protection: a " + kind.name().toLowerCase() + " protection needs a name");
    }
    if (namespace.length() > 512 || name.length() > 255) {
      throw new IllegalArgumentException("Invalid protection: namespace at most 512 and name at most 255 characters");
    }
  }
}
