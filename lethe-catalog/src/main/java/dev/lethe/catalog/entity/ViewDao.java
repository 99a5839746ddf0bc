package dev.lethe.catalog.entity;

import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;

/** SQL of table {@code lethe_view}. */
public final class ViewDao extends EntryDao<ViewRow> {
  private static final RowMapper<ViewRow> ROWS = ConstructorMapper.of(ViewRow.class);
  private static final List<String> COLUMNS = List.of("view_id", "catalog_id", "namespace_id", "name",
      "metadata_location", "previous_metadata_location", "created_at", "updated_at");

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public ViewDao(Handle handle) {
    super(handle, "lethe_view", ROWS, COLUMNS, null);
  }

  /** The view of that name in the namespace, if any. */
  public Optional<ViewRow> find(String namespaceId, String name) {
    return one(handle
        .createQuery(select() + "namespace_id = :ns AND name = :name")
        .bind("ns", namespaceId)
        .bind("name", name));
  }

  /** The view of that id, if any. */
  public Optional<ViewRow> findById(String viewId) {
    return one(handle
        .createQuery(select() + "view_id = :id")
        .bind("id", viewId));
  }

  /** Names of the views of a namespace, sorted. */
  public List<String> listNames(String namespaceId) {
    return names(namespaceId);
  }

  /**
   * One page of the names of the views of a namespace, sorted (keyset:
   * docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last name, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<String> listNamesPage(String namespaceId, String after, int size) {
    return namesPage(namespaceId, after, size);
  }

  /** Whether the namespace holds at least one view. */
  public boolean any(String namespaceId) {
    return anyIn(namespaceId);
  }

  /**
   * Inserts a view.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException if a view of that name
   *     exists (unique key)
   */
  public void insert(ViewRow row) {
    insertRow(row);
  }

  /** Removes a view entry; returns rows deleted (0 or 1). */
  public int delete(String namespaceId, String name) {
    return deleteNamed(namespaceId, name);
  }
}
