package dev.lethe.catalog.iceberg;

import java.sql.SQLException;

/** Recognises database errors that carry a catalog meaning. */
final class SqlErrors {
  private SqlErrors() {}

  /** Whether the failure (or a cause) is an integrity constraint violation (SQLSTATE class 23). */
  static boolean isConstraintViolation(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
        return true;
      }
    }
    return false;
  }
}
