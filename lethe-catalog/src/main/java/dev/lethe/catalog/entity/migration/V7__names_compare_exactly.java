package dev.lethe.catalog.entity.migration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * MySQL/MariaDB only: every name column compares byte for byte (docs/design/0402-exact-name-comparison.md).
 *
 * <p>The tables were created {@code utf8mb4_bin}, which is a PAD SPACE collation on MariaDB and
 * MySQL: {@code 't '} equals {@code 't'}, so a create of {@code t } answered 409 and a load of
 * {@code t%20} returned {@code t}. This migration moves the name columns to the server's binary NO
 * PAD collation: {@code utf8mb4_nopad_bin} on MariaDB (10.2+), {@code utf8mb4_0900_bin} on MySQL
 * (8.0+). A Java migration because the collation's name differs between the two; PostgreSQL and H2
 * compare {@code VARCHAR} exactly already and have no V7.
 *
 * <p>On a database holding names that differ only in trailing spaces nothing can collide: the unique
 * keys refused the second such name so far.
 */
public class V7__names_compare_exactly extends BaseJavaMigration {
  /** {table, column, type} of every name column. */
  static final List<String[]> NAME_COLUMNS = List.of(
      new String[] {"lethe_metalake", "name", "VARCHAR(255)"},
      new String[] {"lethe_catalog", "name", "VARCHAR(255)"},
      new String[] {"lethe_namespace", "name", "VARCHAR(512)"},
      new String[] {"lethe_namespace", "parent_name", "VARCHAR(512)"},
      new String[] {"lethe_table", "name", "VARCHAR(255)"},
      new String[] {"lethe_view", "name", "VARCHAR(255)"},
      new String[] {"lethe_cleanup_job", "metalake_name", "VARCHAR(255)"},
      new String[] {"lethe_cleanup_job", "catalog_name", "VARCHAR(255)"},
      new String[] {"lethe_cleanup_job", "namespace", "VARCHAR(512)"},
      new String[] {"lethe_cleanup_job", "object_name", "VARCHAR(255)"});

  @Override
  public void migrate(Context context) throws Exception {
    Connection c = context.getConnection();
    String collation = noPadBinaryCollation(c);
    try (Statement s = c.createStatement()) {
      for (String[] col : NAME_COLUMNS) {
        s.execute("ALTER TABLE " + col[0] + " MODIFY " + col[1] + " " + col[2]
            + " CHARACTER SET utf8mb4 COLLATE " + collation + " NOT NULL");
      }
    }
  }

  static String noPadBinaryCollation(Connection c) throws SQLException {
    for (String candidate : List.of("utf8mb4_nopad_bin", "utf8mb4_0900_bin")) {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SHOW COLLATION WHERE Collation = '" + candidate + "'")) {
        if (rs.next()) {
          return candidate;
        }
      }
    }
    throw new SQLException("Cannot make catalog names compare exactly: the database has neither utf8mb4_nopad_bin"
        + " (MariaDB 10.2+) nor utf8mb4_0900_bin (MySQL 8.0+)");
  }
}
