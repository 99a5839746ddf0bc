package dev.lethe.store.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Fresh, empty store databases for tests, as the catalog's tests make them: an H2 file under a
 * temp dir, or a new schema (PostgreSQL) / database (MariaDB) on the servers named by {@code
 * lethe.test.postgres.url} / {@code lethe.test.mariadb.url}. An empty URL skips the test, unless
 * {@code lethe.test.require-dbs=true}, which makes it fail. {@link #close} drops what was created.
 */
public final class FreshStoreDatabases implements AutoCloseable {

  /** The backends: {@code h2}, {@code postgresql}, {@code mariadb}. */
  public static final List<String> BACKENDS = List.of("h2", "postgresql", "mariadb");

  private final List<String[]> created = new ArrayList<>(); // {serverUrl, drop statement}

  /**
   * Creates an empty database of {@code backend} and returns its JDBC URL (credentials as URL
   * parameters, as a store URI carries them).
   *
   * @param tmp a directory for H2 files
   */
  public String create(String backend, Path tmp) throws SQLException {
    String name = "lethe_st_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    switch (backend) {
      case "h2":
        return "jdbc:h2:file:" + tmp.resolve(name).toAbsolutePath();
      case "postgresql": {
        String url = serverUrl("lethe.test.postgres.url");
        execute(url, "CREATE SCHEMA " + name);
        created.add(new String[] {url, "DROP SCHEMA IF EXISTS " + name + " CASCADE"});
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + name;
      }
      case "mariadb": {
        String url = serverUrl("lethe.test.mariadb.url");
        // the server default charset and collation on purpose: the store's tables set their own
        execute(url, "CREATE DATABASE " + name);
        created.add(new String[] {url, "DROP DATABASE IF EXISTS " + name});
        return url.replaceFirst("^(jdbc:(?:mariadb|mysql)://[^/]+/)[^?]*", "$1" + name);
      }
      default:
        throw new IllegalArgumentException("Unknown backend " + backend);
    }
  }

  /**
   * The server URL named by a test property; skips the test when it is empty, or fails when
   * {@code lethe.test.require-dbs=true}.
   */
  public static String serverUrl(String property) {
    String url = System.getProperty(property, "");
    if (url.isBlank()) {
      if (Boolean.getBoolean("lethe.test.require-dbs")) {
        throw new IllegalStateException(property + " is empty but lethe.test.require-dbs=true");
      }
      assumeTrue(false, property + " not set: backend skipped");
    }
    return url;
  }

  private static void execute(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Drops every schema and database created. */
  @Override
  public void close() throws SQLException {
    for (String[] c : created) {
      execute(c[0], c[1]);
    }
    created.clear();
  }
}
