package dev.lethe.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;

/**
 * Fresh, empty catalog databases on the external servers named by {@code lethe.test.postgres.url}
 * and {@code lethe.test.mariadb.url}: a new schema (PostgreSQL) or database (MariaDB) per run.
 */
final class Backends {
  private Backends() {}

  /** A created database: the URL for the server and the statement that drops it. */
  record Fresh(String jdbcUrl, String adminUrl, String dropSql) {
    void drop() throws SQLException {
      try (Connection c = DriverManager.getConnection(adminUrl); Statement s = c.createStatement()) {
        s.execute(dropSql);
      }
    }
  }

  /** The server URL of a backend, or empty if its property is empty. */
  static Optional<String> serverUrl(String backend) {
    String property = switch (backend) {
      case "postgresql" -> "lethe.test.postgres.url";
      case "mariadb" -> "lethe.test.mariadb.url";
      default -> throw new IllegalArgumentException("No server for backend " + backend);
    };
    String url = System.getProperty(property, "");
    return url.isBlank() ? Optional.empty() : Optional.of(url);
  }

  /**
   * A fresh database on the backend's server; the test is skipped when its URL is empty, or fails
   * when {@code lethe.test.require-dbs=true}.
   */
  static Fresh createOrSkip(String backend) throws SQLException {
    String url = serverUrl(backend).orElse("");
    if (url.isBlank()) {
      if (Boolean.getBoolean("lethe.test.require-dbs")) {
        throw new IllegalStateException("the " + backend + " URL is empty but lethe.test.require-dbs=true");
      }
      org.junit.jupiter.api.Assumptions.assumeTrue(false, backend + " URL not set: skipped");
    }
    return create(backend, url);
  }

  static Fresh create(String backend, String serverUrl) throws SQLException {
    String name = "lethe_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
      if (backend.equals("postgresql")) {
        s.execute("CREATE SCHEMA " + name);
        String url = serverUrl + (serverUrl.contains("?") ? "&" : "?") + "currentSchema=" + name;
        return new Fresh(url, serverUrl, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
      }
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
      String url = serverUrl.replaceFirst("^(jdbc:(?:mariadb|mysql)://[^/]+/)[^?]*", "$1" + name);
      return new Fresh(url, serverUrl, "DROP DATABASE IF EXISTS " + name);
    }
  }
}
