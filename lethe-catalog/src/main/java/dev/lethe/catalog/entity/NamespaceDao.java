package dev.lethe.catalog.entity;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/** SQL of table {@code lethe_namespace}. */
public final class NamespaceDao {
  private static final String COLUMNS =
      "namespace_id, catalog_id, name, parent_name, properties, created_at, updated_at";

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public NamespaceDao(Handle handle) {
    this.handle = handle;
  }

  /** The namespace of that stored name, if any. */
  public Optional<NamespaceRow> find(String catalogId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_namespace WHERE catalog_id = :c AND name = :name")
        .bind("c", catalogId)
        .bind("name", name)
        .map(ROWS)
        .findOne();
  }

  /** The namespace with that id, if any. */
  public Optional<NamespaceRow> findById(String namespaceId) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_namespace WHERE namespace_id = :id")
        .bind("id", namespaceId)
        .map(ROWS)
        .findOne();
  }

  /** The same as {@link #find}, locking the row until the transaction ends. */
  public Optional<NamespaceRow> findForUpdate(String catalogId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_namespace WHERE catalog_id = :c AND name = :name FOR UPDATE")
        .bind("c", catalogId)
        .bind("name", name)
        .map(ROWS)
        .findOne();
  }

  /** The direct children of a parent (stored name, {@code ""} for the top level), by name. */
  public List<NamespaceRow> listChildren(String catalogId, String parentName) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_namespace WHERE catalog_id = :c AND parent_name = :p ORDER BY name")
        .bind("c", catalogId)
        .bind("p", parentName)
        .map(ROWS)
        .list();
  }

  /**
   * One page of the direct children of a parent, by name (keyset: docs/design/0403-keyset-catalog-listings.md).
   *
   * @param parentName stored name of the parent, {@code ""} for the top level
   * @param after stored name of the previous page's last child, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<NamespaceRow> listChildrenPage(String catalogId, String parentName, String after, int size) {
    Query q = handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_namespace WHERE catalog_id = :c AND parent_name = :p"
            + (after == null ? "" : " AND name > :after") + " ORDER BY name LIMIT :n")
        .bind("c", catalogId)
        .bind("p", parentName)
        .bind("n", KeysetPage.fetchSize(size));
    if (after != null) {
      q.bind("after", after);
    }
    return KeysetPage.cut(q.map(ROWS).list(), size, NamespaceRow::name);
  }

  /**
   * Inserts a namespace.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException on a duplicate name
   */
  public void insert(NamespaceRow row) {
    handle
        .createUpdate("INSERT INTO lethe_namespace (" + COLUMNS + ") "
            + "VALUES (:namespaceId, :catalogId, :name, :parentName, :props, :createdAt, :updatedAt)")
        .bindMethods(row)
        .bind("props", Rows.propertiesToJson(row.properties()))
        .execute();
  }

  /** Replaces the properties of a namespace; returns the number of rows changed (0 or 1). */
  public int updateProperties(String namespaceId, Map<String, String> properties, long now) {
    return handle
        .createUpdate("UPDATE lethe_namespace SET properties = :props, updated_at = :now WHERE namespace_id = :id")
        .bind("props", Rows.propertiesToJson(properties))
        .bind("now", now)
        .bind("id", namespaceId)
        .execute();
  }

  /**
   * Deletes a namespace row; returns the number of rows deleted (0 or 1).
   *
   * @throws ProtectedException if a protection covers the namespace or anything named inside it
   *     (docs/design/0441-drop-protection.md; nothing changes)
   */
  public int delete(String namespaceId) {
    Optional<NamespaceRow> ns = findById(namespaceId);
    int deleted = handle
        .createUpdate("DELETE FROM lethe_namespace WHERE namespace_id = :id")
        .bind("id", namespaceId)
        .execute();
    ns.ifPresent(row -> new ProtectionDao(handle).check(ProtectionDao.Kind.NAMESPACE, row, ""));
    return deleted;
  }

  /** A namespace row; its properties are one JSON column. */
  private static final RowMapper<NamespaceRow> ROWS = (rs, ctx) -> new NamespaceRow(
        rs.getString("namespace_id"),
        rs.getString("catalog_id"),
        rs.getString("name"),
        rs.getString("parent_name"),
        Rows.propertiesFromJson(rs.getString("properties")),
        rs.getLong("created_at"),
        rs.getLong("updated_at"));
}
