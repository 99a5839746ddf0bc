package dev.lethe.catalog.entity;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** SQL of table {@code lethe_catalog}. */
public final class CatalogDao {
  private static final String COLUMNS =
      "catalog_id, metalake_id, name, warehouse, properties, created_at, updated_at";

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public CatalogDao(Handle handle) {
    this.handle = handle;
  }

  /** The catalog of that name in the metalake, if any. */
  public Optional<CatalogRow> findByName(String metalakeId, String name) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_catalog WHERE metalake_id = :m AND name = :name")
        .bind("m", metalakeId)
        .bind("name", name)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** The catalog with that id, if any. */
  public Optional<CatalogRow> findById(String catalogId) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_catalog WHERE catalog_id = :id")
        .bind("id", catalogId)
        .map((rs, ctx) -> map(rs))
        .findOne();
  }

  /** Every catalog of the metalake, by name. */
  public List<CatalogRow> list(String metalakeId) {
    return handle
        .createQuery("SELECT " + COLUMNS + " FROM lethe_catalog WHERE metalake_id = :m ORDER BY name")
        .bind("m", metalakeId)
        .map((rs, ctx) -> map(rs))
        .list();
  }

  /**
   * Inserts a catalog.
   *
   * @throws org.jdbi.v3.core.statement.UnableToExecuteStatementException on a duplicate name
   */
  public void insert(CatalogRow row) {
    handle
        .createUpdate("INSERT INTO lethe_catalog (" + COLUMNS + ") "
            + "VALUES (:id, :m, :name, :warehouse, :props, :created, :updated)")
        .bind("id", row.catalogId())
        .bind("m", row.metalakeId())
        .bind("name", row.name())
        .bind("warehouse", row.warehouse())
        .bind("props", Rows.propertiesToJson(row.properties()))
        .bind("created", row.createdAt())
        .bind("updated", row.updatedAt())
        .execute();
  }

  /**
   * Replaces a catalog's properties.
   *
   * @param now ms since epoch, stored as the update time
   * @return rows changed (0 if the catalog is gone, else 1)
   */
  public int updateProperties(String catalogId, java.util.Map<String, String> properties, long now) {
    return handle
        .createUpdate("UPDATE lethe_catalog SET properties = :props, updated_at = :now WHERE catalog_id = :id")
        .bind("props", Rows.propertiesToJson(properties))
        .bind("now", now)
        .bind("id", catalogId)
        .execute();
  }

  private static CatalogRow map(ResultSet rs) throws SQLException {
    return new CatalogRow(
        rs.getString("catalog_id"),
        rs.getString("metalake_id"),
        rs.getString("name"),
        rs.getString("warehouse"),
        Rows.propertiesFromJson(rs.getString("properties")),
        rs.getLong("created_at"),
        rs.getLong("updated_at"));
  }
}
