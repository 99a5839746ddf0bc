package dev.lethe.store.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;

/**
 * Turns a database failure into the {@link UncheckedIOException} the {@link
 * dev.lethe.store.core.Store} SPI throws for substrate failures, naming the operation and the
 * database (never its credentials).
 */
final class SqlFailure {
  private SqlFailure() {}

  static UncheckedIOException of(String what, String redactedUrl, SQLException e) {
    String state = e.getSQLState() == null ? "" : " (SQLState " + e.getSQLState() + ")";
    return new UncheckedIOException(what,
        new IOException(redactedUrl + ": " + e.getMessage() + state, e));
  }
}
