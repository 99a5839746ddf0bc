package dev.lethe.catalog.entity;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * Fresh, empty catalog databases for tests: an H2 file under a temp dir, or a new schema
 * (PostgreSQL) / database (MariaDB) on the servers named by {@code lethe.test.postgres.url} /
 * {@code lethe.test.mariadb.url}. An empty URL skips that backend, unless {@code
 * lethe.test.require-dbs=true}, which makes it fail.
 */
public final class JdbcBackends {
  private JdbcBackends() {}

  /** A fresh database of the backend ({@code h2}, {@code postgresql}, {@code mariadb}); drop it with {@link #drop}. */
  public static DatabaseSettings fresh(String backend, Path tmp) throws SQLException {
    String name = "lethe_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    switch (backend) {
      case "h2":
        return new DatabaseSettings("jdbc:h2:file:" + tmp.resolve("catalog").toAbsolutePath(), null, null, 4);
      case "postgresql": {
        String url = serverUrl("lethe.test.postgres.url");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
          s.execute("CREATE SCHEMA " + name);
        }
        return new DatabaseSettings(withParam(url, "currentSchema=" + name), null, null, 4);
      }
      case "mariadb": {
        String url = serverUrl("lethe.test.mariadb.url");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
          s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        }
        return new DatabaseSettings(replaceDatabase(url, name), null, null, 4);
      }
      default:
        throw new IllegalArgumentException("Unknown backend " + backend);
    }
  }

  /** Drops what {@link #fresh} created on a server (nothing for H2). */
  public static void drop(String backend, DatabaseSettings settings) throws SQLException {
    if (backend.equals("postgresql")) {
      String schema = settings.jdbcUrl().substring(settings.jdbcUrl().indexOf("currentSchema=") + "currentSchema=".length());
      try (Connection c = DriverManager.getConnection(serverUrl("lethe.test.postgres.url")); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    } else if (backend.equals("mariadb")) {
      String db = settings.jdbcUrl().replaceFirst("^jdbc:mariadb://[^/]+/([^?]+).*$", "$1");
      try (Connection c = DriverManager.getConnection(serverUrl("lethe.test.mariadb.url")); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + db);
      }
    }
  }

  private static String serverUrl(String property) {
    String url = System.getProperty(property, "");
    boolean required = Boolean.getBoolean("lethe.test.require-dbs");
    if (url.isBlank()) {
      if (required) {
        throw new IllegalStateException(property + " is empty but lethe.test.require-dbs=true");
      }
      assumeTrue(false, property + " not set: backend skipped");
    }
    return url;
  }

  static String withParam(String url, String param) {
    return url + (url.contains("?") ? "&" : "?") + param;
  }

  static String replaceDatabase(String url, String db) {
    return url.replaceFirst("^(jdbc:(?:mariadb|mysql)://[^/]+/)[^?]*", "$1" + db);
  }
}
