package dev.lethe.catalog.entity;

import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;

/** SQL of table {@code lethe_view}. */
public final class ViewDao extends EntryDao<ViewRow> {
  @Override
  ProtectionDao.Kind protectionKind() {
    return ProtectionDao.Kind.VIEW;
  }

  private static final RowMapper<ViewRow> ROWS = ConstructorMapper.of(ViewRow.class);
  private static final List<String> COLUMNS = List.of("view_id", "catalog_id", "namespace_id", "name",
      "metadata_location", "previous_metadata_location", "created_at", "updated_at");

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public ViewDao(Handle handle) {
    super(handle, "lethe_view", ROWS, COLUMNS, null);
  }

  /** The view of that id, if any. */
  public Optional<ViewRow> findById(String viewId) {
    return one(handle
        .createQuery(select() + "view_id = :id")
        .bind("id", viewId));
  }
}
