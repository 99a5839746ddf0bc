package dev.lethe.catalog.entity;

import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;

/**
 * SQL of table {@code lethe_table}.
 *
 * <p>Every read of a table goes through {@link #IS_DELETED} (docs/design/0200-catalog-architecture.md "Entities and storage"):
 * live rows are {@code NOT} that predicate, so a row marked deleted either way is never served.
 * The soft deletion's reads and writes ({@link #RETAINED}, the {@code …Retained}/{@code …ForUpdate}
 * methods) address deleted rows on purpose, and only through the deletion pointer. The statements
 * shared with views ({@link EntryDao#find}, {@code names}, {@code any}, {@code delete}, the
 * compare-and-set) address live rows only.
 */
public final class TableDao extends EntryDao<TableRow> {
  @Override
  ProtectionDao.Kind protectionKind() {
    return ProtectionDao.Kind.TABLE;
  }

  /** The one "is deleted" predicate; every query of this DAO uses it. */
  public static final String IS_DELETED = "(deleted_at <> 0 OR deletion_id IS NOT NULL)";

  /**
   * A row kept by a soft delete (docs/design/0202-soft-deletion.md §3): it still holds its name ({@code
   * deleted_at = 0}) but is deleted through its {@code deletion_id}.
   */
  public static final String RETAINED = "(deleted_at = 0 AND deletion_id IS NOT NULL)";

  private static final String LIVE = "NOT " + IS_DELETED;
  private static final RowMapper<TableRow> ROWS = ConstructorMapper.of(TableRow.class);
  private static final List<String> COLUMNS = List.of("table_id", "catalog_id", "namespace_id", "name",
      "metadata_location", "previous_metadata_location", "deleted_at", "deletion_id", "created_at", "updated_at");

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public TableDao(Handle handle) {
    super(handle, "lethe_table", ROWS, COLUMNS, LIVE);
  }

  /**
   * The row holding that name in the namespace, live or retained ({@code deleted_at = 0}; the unique
   * key allows one), row-locked until the transaction ends: the only lock of a soft drop (docs/design/0202-soft-deletion.md §4).
   */
  public Optional<TableRow> findNameHolderForUpdate(String namespaceId, String name) {
    return one(handle
        .createQuery(select() + "namespace_id = :ns AND name = :name "
            + "AND deleted_at = 0 FOR UPDATE")
        .bind("ns", namespaceId)
        .bind("name", name));
  }

  /** The row of that id, live or deleted, if any; no lock. */
  public Optional<TableRow> findById(String tableId) {
    return one(handle
        .createQuery(select() + "table_id = :id")
        .bind("id", tableId));
  }

  /** The row of that id, live or deleted, row-locked until the transaction ends (second lock of docs/design/0202-soft-deletion.md §4). */
  public Optional<TableRow> findByIdForUpdate(String tableId) {
    return one(handle
        .createQuery(select() + "table_id = :id FOR UPDATE")
        .bind("id", tableId));
  }

  /** The retained row of that name in the namespace, if any; no lock. */
  public Optional<TableRow> findRetained(String namespaceId, String name) {
    return one(handle
        .createQuery(select() + "namespace_id = :ns AND name = :name AND " + RETAINED)
        .bind("ns", namespaceId)
        .bind("name", name));
  }

  /**
   * Points a live row at its deletion record: the soft drop. Row and name stay.
   *
   * @return 1 if set, 0 if the row is no longer live
   * @throws ProtectedException if a protection covers the table (docs/design/0441-drop-protection.md;
   *     nothing changes)
   */
  public int setDeletionId(String tableId, String deletionId) {
    int set = handle
        .createUpdate("UPDATE lethe_table SET deletion_id = :d WHERE table_id = :id AND " + LIVE)
        .bind("d", deletionId)
        .bind("id", tableId)
        .execute();
    handle.createQuery("SELECT namespace_id, name FROM lethe_table WHERE table_id = :id")
        .bind("id", tableId)
        .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)})
        .findOne()
        .ifPresent(r -> new ProtectionDao(handle).check(ProtectionDao.Kind.TABLE, r[0], r[1]));
    return set;
  }


  /**
   * Clears the pointer of a retained row if it still points at {@code deletionId}: the restore.
   *
   * @return 1 if cleared, 0 otherwise
   */
  public int clearDeletionId(String tableId, String deletionId) {
    return handle
        .createUpdate("UPDATE lethe_table SET deletion_id = NULL WHERE table_id = :id AND deletion_id = :d AND deleted_at = 0")
        .bind("id", tableId)
        .bind("d", deletionId)
        .execute();
  }

  /**
   * Removes a retained row if it still points at {@code deletionId}: the finalization of a purge.
   *
   * @return rows deleted (0 or 1)
   */
  public int deleteRetained(String tableId, String deletionId) {
    return handle
        .createUpdate("DELETE FROM lethe_table WHERE table_id = :id AND deletion_id = :d")
        .bind("id", tableId)
        .bind("d", deletionId)
        .execute();
  }
}
