package dev.lethe.catalog.entity;

import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** SQL of table {@code lethe_metalake}. */
public final class MetalakeDao {
  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public MetalakeDao(Handle handle) {
    this.handle = handle;
  }

  /** The metalake of that name, if any. */
  public Optional<MetalakeRow> findByName(String name) {
    return handle
        .createQuery("SELECT metalake_id, name, created_at, updated_at FROM lethe_metalake WHERE name = :name")
        .bind("name", name)
        .map((rs, ctx) -> new MetalakeRow(
            rs.getString("metalake_id"), rs.getString("name"), rs.getLong("created_at"), rs.getLong("updated_at")))
        .findOne();
  }

  /**
   * Inserts a metalake.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException on a duplicate name
   */
  public void insert(MetalakeRow row) {
    handle
        .createUpdate("INSERT INTO lethe_metalake (metalake_id, name, created_at, updated_at) "
            + "VALUES (:id, :name, :created, :updated)")
        .bind("id", row.metalakeId())
        .bind("name", row.name())
        .bind("created", row.createdAt())
        .bind("updated", row.updatedAt())
        .execute();
  }
}
