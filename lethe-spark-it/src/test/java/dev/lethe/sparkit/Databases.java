package dev.lethe.sparkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A fresh PostgreSQL schema per test class on the server named by {@code lethe.test.postgres.url}:
 * skipped when the property is empty, a failure when {@code lethe.test.require-dbs=true}.
 */
final class Databases {
  private Databases() {}

  /** A created schema: the URL for the server and how to drop it. */
  record Fresh(String jdbcUrl, String adminUrl, String schema) {
    void drop() throws SQLException {
      try (Connection c = DriverManager.getConnection(adminUrl); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }

  static Fresh postgresOrSkip() throws SQLException {
    String url = System.getProperty("lethe.test.postgres.url", "");
    if (url.isBlank()) {
      if (Boolean.getBoolean("lethe.test.require-dbs")) {
        throw new IllegalStateException("lethe.test.postgres.url is empty but lethe.test.require-dbs=true");
      }
      Assumptions.abort("lethe.test.postgres.url not set: the PostgreSQL run is skipped");
    }
    String schema = "lethe_spark_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    return new Fresh(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema, url, schema);
  }
}
