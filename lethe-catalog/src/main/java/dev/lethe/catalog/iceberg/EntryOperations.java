package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.EntryDao;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * What {@link LetheTableOperations} and {@link LetheViewOperations} share (they extend two Iceberg
 * bases, so they hold one of these): the entry's row, its refresh, its insert under the namespace
 * lock and its compare-and-set commit (docs/design/0200-catalog-architecture.md "Entities and
 * storage"). {@link Kind} says what differs between a table and a view.
 *
 * @param <R> the row record
 */
final class EntryOperations<R> {
  final Jdbi jdbi;
  final String catalogId;
  final TableIdentifier identifier;
  final FileIO io;
  final Clock clock;
  final AllowedLocations allowed;
  private final Supplier<String> ids;
  private final Kind<R> kind;

  EntryOperations(Kind<R> kind, Jdbi jdbi, String catalogId, TableIdentifier identifier, FileIO io, Clock clock,
      Supplier<String> ids, AllowedLocations allowed) {
    this.kind = kind;
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.identifier = identifier;
    this.io = io;
    this.clock = clock;
    this.ids = ids;
    this.allowed = allowed;
  }

  /**
   * What differs between a table and a view entry.
   *
   * @param word "table" or "view", as messages name it
   * @param noSuch the 404 of a gone entry, from a format and its arguments
   * @param gone the 404's format when a refresh finds the entry gone (one argument, the identifier)
   */
  record Kind<R>(String word, Function<Handle, EntryDao<R>> dao, Function<R, String> id,
      Function<R, String> location, Function<String, ClaimOwner> owner,
      BiFunction<String, Object[], RuntimeException> noSuch, String gone) {
    static final Kind<TableRow> TABLE = new Kind<>("table", TableDao::new, TableRow::tableId,
        TableRow::metadataLocation, ClaimOwner::table, NoSuchTableException::new,
        "Table does not exist: %s (dropped by another client)");
    static final Kind<ViewRow> VIEW = new Kind<>("view", ViewDao::new, ViewRow::viewId,
        ViewRow::metadataLocation, ClaimOwner::view, NoSuchViewException::new, "View does not exist: %s");

    String title() {
      return Character.toUpperCase(word.charAt(0)) + word.substring(1);
    }

    /** The other kind, whose entries share the name space of this one. */
    Kind<?> other() {
      return this == TABLE ? VIEW : TABLE;
    }
  }

  /** The entry's visible row (a table's live row), if any, read on {@code h}. */
  Optional<R> find(Handle h) {
    return Namespaces.find(h, catalogId, identifier.namespace())
        .flatMap(ns -> kind.dao().apply(h).find(ns.namespaceId(), identifier.name()));
  }

  /** Who holds the entry's claims while it lives, if it does. */
  Optional<ClaimOwner> liveOwner(Handle h) {
    return find(h).map(row -> kind.owner().apply(kind.id().apply(row)));
  }

  /**
   * The refresh of both operations: the current row's metadata file is read; no row is "not
   * created yet" (refresh disabled) unless the operations had one, then it is a 404.
   *
   * @param current the operations' current metadata location, null if none was read
   * @param read reads a metadata location (the base class's refresh)
   */
  void refresh(String current, Runnable disable, Consumer<String> read) {
    Optional<R> row = jdbi.withHandle(this::find);
    if (row.isEmpty()) {
      if (current != null) {
        throw kind.noSuch().apply(kind.gone(), new Object[] {identifier});
      }
      disable.run();
      return;
    }
    // a corrupt metadata file fails at once instead of in Iceberg's 90 s retry loop (MetadataReadRetry)
    String location = kind.location().apply(row.get());
    MetadataReadRetry.readCurrent(kind.word(), identifier, location, () -> read.accept(location));
  }

  /**
   * Inserts the entry under its namespace's lock: no entry of either kind may hold the name; the new
   * entry holds {@code roots} (rule 2, the last lock of the transaction) or nothing is created.
   *
   * @param row the row to insert, from the namespace and the new id
   * @throws AlreadyExistsException if the name is taken, or a root is held by another entry
   */
  void insert(BiFunction<NamespaceRow, String, R> row, List<LocationPath> roots, long now, String refusal) {
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow ns = Namespaces.findForUpdate(h, catalogId, identifier.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException(
                "Cannot create " + kind.word() + " %s: namespace does not exist: %s", identifier, identifier.namespace()));
        Kind<?> other = kind.other();
        if (other.dao().apply(h).find(ns.namespaceId(), identifier.name()).isPresent()) {
          throw new AlreadyExistsException(other.title() + " with same name already exists: %s", identifier);
        }
        EntryDao<R> dao = kind.dao().apply(h);
        if (dao.find(ns.namespaceId(), identifier.name()).isPresent()) {
          throw new AlreadyExistsException(kind.title() + " already exists: %s", identifier);
        }
        NameGuards.check(h, catalogId, ns, identifier);
        String id = ids.get();
        dao.insert(row.apply(ns, id));
        LocationClaims.acquire(h, catalogId, kind.owner().apply(id), roots, now, refusal);
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, kind.title() + " already exists: %s", identifier);
      }
      throw e;
    }
  }

  /**
   * The commit's compare-and-set inside the caller's transaction (it row-locks the entry).
   *
   * @param named how messages name the entry: "" for a table, "view " for a view
   * @return the id of the swapped row
   * @throws NoSuchTableException or {@link NoSuchViewException} if the entry (or its namespace) is
   *     gone: a drop won the race
   * @throws CommitFailedException if another commit won
   */
  static <R> String swap(Handle h, Kind<R> kind, String named, String catalogId, TableIdentifier identifier,
      String expected, String next, long now) {
    Optional<NamespaceRow> ns = Namespaces.find(h, catalogId, identifier.namespace());
    EntryDao<R> dao = kind.dao().apply(h);
    int swapped = ns.map(n -> dao.compareAndSetMetadataLocation(n.namespaceId(), identifier.name(), expected, next, now))
        .orElse(0);
    Optional<R> row = ns.flatMap(n -> dao.find(n.namespaceId(), identifier.name()));
    if (row.isEmpty()) {
      throw kind.noSuch().apply("Cannot commit " + named + "%s: the " + kind.word() + " was dropped",
          new Object[] {identifier});
    }
    if (swapped != 1) {
      throw new CommitFailedException("Cannot commit " + named + "%s: metadata location is no longer %s (another commit won)",
          identifier, expected);
    }
    return kind.id().apply(row.get());
  }
}
