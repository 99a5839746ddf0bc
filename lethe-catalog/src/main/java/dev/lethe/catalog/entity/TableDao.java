package dev.lethe.catalog.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * SQL of table {@code lethe_table}.
 *
 * <p>Every read of a table goes through {@link #IS_DELETED} (docs/design/0200-catalog-architecture.md "Entities and storage"):
 * live rows are {@code NOT} that predicate, so a row marked deleted either way is never served.
 * The soft deletion's reads and writes ({@link #RETAINED}, the {@code …Retained}/{@code …ForUpdate}
 * methods) address deleted rows on purpose, and only through the deletion pointer.
 */
public final class TableDao {
  /** The one "is deleted" predicate; every query of this DAO uses it. */
  public static final String IS_DELETED = "(deleted_at <> 0 OR deletion_id IS NOT NULL)";

  /**
   * A row kept by a soft delete (docs/design/0202-soft-deletion.md §3): it still holds its name ({@code
   * deleted_at = 0}) but is deleted through its {@code deletion_id}.
   */
  public static final String RETAINED = "(deleted_at = 0 AND deletion_id IS NOT NULL)";

  private static final String LIVE = "NOT " + IS_DELETED;
  private static final String COLUMNS =
      "table_id, catalog_id, namespace_id, name, metadata_location, previous_metadata_location, "
          + "deleted_at, deletion_id, created_at, updated_at";

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public TableDao(Handle handle) {
    this.handle = handle;
  }

  /** The live table of that name in the namespace, if any. */
  public Optional<TableRow> findLive(String namespaceId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_table WHERE namespace_id = :ns AND name = :name AND " + LIVE)
        .bind("ns", namespaceId)
        .bind("name", name)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** Names of the live tables of a namespace, sorted. */
  public List<String> listLiveNames(String namespaceId) {
    return handle
        .createQuery("SELECT name FROM lethe_table WHERE namespace_id = :ns AND " + LIVE + " ORDER BY name")
        .bind("ns", namespaceId)
        .mapTo(String.class)
        .list();
  }

  /**
   * One page of the names of the live tables of a namespace, sorted (keyset:
   * docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last name, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<String> listLiveNamesPage(String namespaceId, String after, int size) {
    Query q = handle
        .createQuery("SELECT name FROM lethe_table WHERE namespace_id = :ns AND " + LIVE
            + (after == null ? "" : " AND name > :after") + " ORDER BY name LIMIT :n")
        .bind("ns", namespaceId)
        .bind("n", KeysetPage.fetchSize(size));
    if (after != null) {
      q.bind("after", after);
    }
    return KeysetPage.cut(q.mapTo(String.class).list(), size, name -> name);
  }

  /** Whether the namespace holds at least one live table. */
  public boolean anyLive(String namespaceId) {
    return handle
        .createQuery("SELECT COUNT(*) FROM lethe_table WHERE namespace_id = :ns AND " + LIVE)
        .bind("ns", namespaceId)
        .mapTo(Long.class)
        .one() > 0;
  }

  /**
   * Inserts a live table.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException if a live table of that
   *     name exists (unique key)
   */
  public void insert(TableRow row) {
    handle
        .createUpdate("INSERT INTO lethe_table (" + COLUMNS + ") VALUES "
            + "(:id, :c, :ns, :name, :loc, :prev, :deletedAt, :deletionId, :created, :updated)")
        .bind("id", row.tableId())
        .bind("c", row.catalogId())
        .bind("ns", row.namespaceId())
        .bind("name", row.name())
        .bind("loc", row.metadataLocation())
        .bind("prev", row.previousMetadataLocation())
        .bind("deletedAt", row.deletedAt())
        .bind("deletionId", row.deletionId())
        .bind("created", row.createdAt())
        .bind("updated", row.updatedAt())
        .execute();
  }

  /**
   * Swaps the metadata location of a live table if it is still {@code expected}: the commit's
   * compare-and-set.
   *
   * @return 1 if swapped, 0 if the table is gone or another commit won
   */
  public int compareAndSetMetadataLocation(String namespaceId, String name, String expected, String next, long now) {
    return handle
        .createUpdate("UPDATE lethe_table SET metadata_location = :next, previous_metadata_location = :expected, "
            + "updated_at = :now WHERE namespace_id = :ns AND name = :name AND metadata_location = :expected AND " + LIVE)
        .bind("next", next)
        .bind("expected", expected)
        .bind("now", now)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  /** Moves a live table to another namespace and/or name; returns rows changed (0 or 1). */
  public int rename(String namespaceId, String name, String toNamespaceId, String toName, long now) {
    return handle
        .createUpdate("UPDATE lethe_table SET namespace_id = :toNs, name = :toName, updated_at = :now "
            + "WHERE namespace_id = :ns AND name = :name AND " + LIVE)
        .bind("toNs", toNamespaceId)
        .bind("toName", toName)
        .bind("now", now)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  /**
   * Removes the entry of a live table (the metadata-only drop); files are not touched.
   *
   * @return rows deleted (0 or 1)
   */
  public int deleteLive(String namespaceId, String name) {
    return handle
        .createUpdate("DELETE FROM lethe_table WHERE namespace_id = :ns AND name = :name AND " + LIVE)
        .bind("ns", namespaceId)
        .bind("name", name)
        .execute();
  }

  /**
   * The row holding that name in the namespace, live or retained ({@code deleted_at = 0}; the unique
   * key allows one), row-locked until the transaction ends: the only lock of a soft drop (docs/design/0202-soft-deletion.md §4).
   */
  public Optional<TableRow> findNameHolderForUpdate(String namespaceId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_table WHERE namespace_id = :ns AND name = :name "
            + "AND deleted_at = 0 FOR UPDATE")
        .bind("ns", namespaceId)
        .bind("name", name)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** The row of that id, live or deleted, if any; no lock. */
  public Optional<TableRow> findById(String tableId) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_table WHERE table_id = :id")
        .bind("id", tableId)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** The row of that id, live or deleted, row-locked until the transaction ends (second lock of docs/design/0202-soft-deletion.md §4). */
  public Optional<TableRow> findByIdForUpdate(String tableId) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_table WHERE table_id = :id FOR UPDATE")
        .bind("id", tableId)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** The retained row of that name in the namespace, if any; no lock. */
  public Optional<TableRow> findRetained(String namespaceId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_table WHERE namespace_id = :ns AND name = :name AND " + RETAINED)
        .bind("ns", namespaceId)
        .bind("name", name)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /**
   * Points a live row at its deletion record: the soft drop. Row and name stay.
   *
   * @return 1 if set, 0 if the row is no longer live
   */
  public int setDeletionId(String tableId, String deletionId) {
    return handle
        .createUpdate("UPDATE lethe_table SET deletion_id = :d WHERE table_id = :id AND " + LIVE)
        .bind("d", deletionId)
        .bind("id", tableId)
        .execute();
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

  private static TableRow map(ResultSet rs) throws SQLException {
    return new TableRow(
        rs.getString("table_id"),
        rs.getString("catalog_id"),
        rs.getString("namespace_id"),
        rs.getString("name"),
        rs.getString("metadata_location"),
        rs.getString("previous_metadata_location"),
        rs.getLong("deleted_at"),
        rs.getString("deletion_id"),
        rs.getLong("created_at"),
        rs.getLong("updated_at"));
  }
}
