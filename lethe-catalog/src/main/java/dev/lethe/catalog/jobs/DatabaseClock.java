package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.DatabaseVendor;
import org.jdbi.v3.core.Handle;

/**
 * The database's own clock in ms since epoch. Leases compare heartbeats written by different
 * replicas, so staleness is measured on this one clock, never on each replica's (docs/design/0201-cleanup-jobs.md
 * §5).
 */
public final class DatabaseClock {
  private final String sql;

  private DatabaseClock(String sql) {
    this.sql = sql;
  }

  /** The clock query of a vendor. */
  public static DatabaseClock of(DatabaseVendor vendor) {
    return new DatabaseClock(switch (vendor) {
      // clock_timestamp(), not now(): now() is frozen at the start of the transaction
      case POSTGRESQL -> "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)";
      case MYSQL -> "SELECT CAST(FLOOR(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000) AS SIGNED)";
      case H2 -> "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000) AS BIGINT)";
    });
  }

  /** Now, ms since epoch, as the database sees it. */
  public long millis(Handle handle) {
    return handle.createQuery(sql).mapTo(Long.class).one();
  }
}
