package dev.lethe.catalog.entity;

import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;
import org.jdbi.v3.core.statement.Query;

/**
 * The SQL that {@link TableDao} and {@link ViewDao} share: one row record per entry, read with
 * JDBI's {@link ConstructorMapper} (columns {@code snake_case} ↔ record components {@code
 * camelCase}), written with {@code bindMethods}; every statement addresses only the rows that
 * {@link #visible} admits (docs/design/0220-library-plumbing.md §JDBI).
 *
 * @param <R> the row record
 */
public abstract sealed class EntryDao<R> permits TableDao, ViewDao {
  /** The handle, and so its transaction if any. */
  protected final Handle handle;
  private final String table;
  private final List<String> columns;
  private final String visible;
  private final RowMapper<R> rows;

  /**
   * @param table the SQL table
   * @param rows the row record's {@link ConstructorMapper}, built once per DAO class
   * @param columns the columns, each the row record's component of the same name camelCased
   * @param visible the condition every statement adds ({@code AND …}), e.g. "live"; null for none
   */
  EntryDao(Handle handle, String table, RowMapper<R> rows, List<String> columns, String visible) {
    this.handle = handle;
    this.table = table;
    this.columns = columns;
    this.visible = visible == null ? "" : " AND " + visible;
    this.rows = rows;
  }

  /** {@code SELECT <columns> FROM <table> WHERE } (the caller's condition follows). */
  protected final String select() {
    return "SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE ";
  }

  /** The one row a query finds, if any. */
  protected final Optional<R> one(Query query) {
    return query.map(rows).findOne();
  }

  /** The visible entry of that name in the namespace (a table: the live one), if any. */
  public final Optional<R> find(String namespaceId, String name) {
    return one(handle
        .createQuery(select() + "namespace_id = :ns AND name = :name" + visible)
        .bind("ns", namespaceId)
        .bind("name", name));
  }

  /**
   * Inserts the row, every column bound from the record's accessor of the same (camelCase) name.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException if an entry of that name
   *     exists (unique key)
   */
  public final void insert(R row) {
    handle
        .createUpdate("INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
            + String.join(", ", columns.stream().map(c -> ":" + camel(c)).toList()) + ")")
        .bindMethods(row)
        .execute();
  }

  /** Names of the visible entries of the namespace, sorted. */
  public final List<String> names(String namespaceId) {
    return handle
        .createQuery("SELECT name FROM " + table + " WHERE namespace_id = :ns" + visible + " ORDER BY name")
        .bind("ns", namespaceId)
        .mapTo(String.class)
        .list();
  }

  /**
   * One keyset page of the names of the visible entries of the namespace, sorted
   * (docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last name, or null for the first page
   * @param size the page size, at least 1
   */
  public final KeysetPage<String> namesPage(String namespaceId, String after, int size) {
    Query q = handle
        .createQuery("SELECT name FROM " + table + " WHERE namespace_id = :ns" + visible
            + (after == null ? "" : " AND name > :after") + " ORDER BY name LIMIT :n")
        .bind("ns", namespaceId)
        .bind("n", KeysetPage.fetchSize(size));
    if (after != null) {
      q.bind("after", after);
    }
    return KeysetPage.cut(q.mapTo(String.class).list(), size, name -> name);
  }

  /** Whether the namespace holds at least one visible entry. */
  public final boolean any(String namespaceId) {
    return handle
        .createQuery("SELECT COUNT(*) FROM " + table + " WHERE namespace_id = :ns" + visible)
        .bind("ns", namespaceId)
        .mapTo(Long.class)
        .one() > 0;
  }

  /**
   * Swaps the metadata location if it is still {@code expected}: the commit's compare-and-set.
   *
   * @return 1 if swapped, 0 if the entry is gone or another commit won
   */
  public int compareAndSetMetadataLocation(String namespaceId, String name, String expected, String next, long now) {
    return handle
        .createUpdate("UPDATE " + table + " SET metadata_location = :next, previous_metadata_location = :expected, "
            + "updated_at = :now WHERE namespace_id = :ns AND name = :name AND metadata_location = :expected" + visible)
        .bind("next", next)
        .bind("expected", expected)
        .bind("now", now)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  /** What a protection of this kind of entry is (docs/design/0441-drop-protection.md). */
  abstract ProtectionDao.Kind protectionKind();

  /**
   * Moves an entry to another namespace and/or name; returns rows changed (0 or 1).
   *
   * @throws ProtectedException if a protection covers the entry's current name (nothing changes)
   */
  public int rename(String namespaceId, String name, String toNamespaceId, String toName, long now) {
    int renamed = handle
        .createUpdate("UPDATE " + table + " SET namespace_id = :toNs, name = :toName, updated_at = :now "
            + "WHERE namespace_id = :ns AND name = :name" + visible)
        .bind("toNs", toNamespaceId)
        .bind("toName", toName)
        .bind("now", now)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
    new ProtectionDao(handle).check(protectionKind(), namespaceId, name);
    return renamed;
  }

  /**
   * Removes the visible entry of that name (a table's metadata-only drop); files are not touched.
   *
   * @return rows deleted (0 or 1)
   * @throws ProtectedException if a protection covers the entry (nothing changes)
   */
  public final int delete(String namespaceId, String name) {
    int deleted = handle
        .createUpdate("DELETE FROM " + table + " WHERE namespace_id = :ns AND name = :name" + visible)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
    new ProtectionDao(handle).check(protectionKind(), namespaceId, name);
    return deleted;
  }

  private static String camel(String column) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char ch : column.toCharArray()) {
      if (ch == '_') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(ch) : ch);
        up = false;
      }
    }
    return b.toString();
  }
}
