package dev.lethe.catalog.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/** SQL of table {@code lethe_view}. */
public final class ViewDao {
  private static final String COLUMNS =
      "view_id, catalog_id, namespace_id, name, metadata_location, previous_metadata_location, created_at, updated_at";

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public ViewDao(Handle handle) {
    this.handle = handle;
  }

  /** The view of that name in the namespace, if any. */
  public Optional<ViewRow> find(String namespaceId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_view WHERE namespace_id = :ns AND name = :name")
        .bind("ns", namespaceId)
        .bind("name", name)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** The view of that id, if any. */
  public Optional<ViewRow> findById(String viewId) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_view WHERE view_id = :id")
        .bind("id", viewId)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** Names of the views of a namespace, sorted. */
  public List<String> listNames(String namespaceId) {
    return handle
        .createQuery("SELECT name FROM lethe_view WHERE namespace_id = :ns ORDER BY name")
        .bind("ns", namespaceId)
        .mapTo(String.class)
        .list();
  }

  /**
   * One page of the names of the views of a namespace, sorted (keyset:
   * docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last name, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<String> listNamesPage(String namespaceId, String after, int size) {
    Query q = handle
        .createQuery("SELECT name FROM lethe_view WHERE namespace_id = :ns"
            + (after == null ? "" : " AND name > :after") + " ORDER BY name LIMIT :n")
        .bind("ns", namespaceId)
        .bind("n", KeysetPage.fetchSize(size));
    if (after != null) {
      q.bind("after", after);
    }
    return KeysetPage.cut(q.mapTo(String.class).list(), size, name -> name);
  }

  /** Whether the namespace holds at least one view. */
  public boolean any(String namespaceId) {
    return handle
        .createQuery("SELECT COUNT(*) FROM lethe_view WHERE namespace_id = :ns")
        .bind("ns", namespaceId)
        .mapTo(Long.class)
        .one() > 0;
  }

  /**
   * Inserts a view.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException if a view of that name
   *     exists (unique key)
   */
  public void insert(ViewRow row) {
    handle
        .createUpdate("INSERT INTO lethe_view (" + COLUMNS + ") VALUES "
            + "(:id, :c, :ns, :name, :loc, :prev, :created, :updated)")
        .bind("id", row.viewId())
        .bind("c", row.catalogId())
        .bind("ns", row.namespaceId())
        .bind("name", row.name())
        .bind("loc", row.metadataLocation())
        .bind("prev", row.previousMetadataLocation())
        .bind("created", row.createdAt())
        .bind("updated", row.updatedAt())
        .execute();
  }

  /**
   * Swaps the metadata location if it is still {@code expected}.
   *
   * @return 1 if swapped, 0 if the view is gone or another commit won
   */
  public int compareAndSetMetadataLocation(String namespaceId, String name, String expected, String next, long now) {
    return handle
        .createUpdate("UPDATE lethe_view SET metadata_location = :next, previous_metadata_location = :expected, "
            + "updated_at = :now WHERE namespace_id = :ns AND name = :name AND metadata_location = :expected")
        .bind("next", next)
        .bind("expected", expected)
        .bind("now", now)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  /** Moves a view to another namespace and/or name; returns rows changed (0 or 1). */
  public int rename(String namespaceId, String name, String toNamespaceId, String toName, long now) {
    return handle
        .createUpdate("UPDATE lethe_view SET namespace_id = :toNs, name = :toName, updated_at = :now "
            + "WHERE namespace_id = :ns AND name = :name")
        .bind("toNs", toNamespaceId)
        .bind("toName", toName)
        .bind("now", now)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  /** Removes a view entry; returns rows deleted (0 or 1). */
  public int delete(String namespaceId, String name) {
    return handle
        .createUpdate("DELETE FROM lethe_view WHERE namespace_id = :ns AND name = :name")
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  private static ViewRow map(ResultSet rs) throws SQLException {
    return new ViewRow(
        rs.getString("view_id"),
        rs.getString("catalog_id"),
        rs.getString("namespace_id"),
        rs.getString("name"),
        rs.getString("metadata_location"),
        rs.getString("previous_metadata_location"),
        rs.getLong("created_at"),
        rs.getLong("updated_at"));
  }
}
