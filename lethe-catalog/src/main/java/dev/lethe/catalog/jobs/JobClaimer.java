package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseVendor;
import java.util.Optional;

/**
 * How a free worker claims one cleanup job (docs/design/0201-cleanup-jobs.md §5). Either way the claiming {@code
 * UPDATE} is a compare-and-set that is the serialization point, so two workers never hold one job;
 * {@code SKIP LOCKED} only cuts contention up front.
 */
public interface JobClaimer {
  /** A claimed job and the lease seeded by the claim's heartbeat. */
  record Claimed(CleanupJob job, Lease lease) {}

  /**
   * Claims the oldest claimable job, if any.
   *
   * @param heartbeatTimeoutMs heartbeats older than this (on the database clock) are abandoned
   */
  Optional<Claimed> claim(long heartbeatTimeoutMs);

  /** The claim strategy's name, for logs and tests. */
  String name();

  /**
   * {@code FOR UPDATE SKIP LOCKED} on PostgreSQL and on MariaDB 10.6+ / MySQL 8+, the portable
   * compare-and-set elsewhere (H2, older MySQL/MariaDB).
   */
  static JobClaimer forDatabase(CatalogDatabase database) {
    if (database.vendor() == DatabaseVendor.POSTGRESQL || supportsSkipLocked(database)) {
      return new SkipLockedJobClaimer(database);
    }
    return new CasJobClaimer(database);
  }

  private static boolean supportsSkipLocked(CatalogDatabase database) {
    if (database.vendor() != DatabaseVendor.MYSQL) {
      return false;
    }
    try {
      return database.background().withHandle(h -> {
      java.sql.DatabaseMetaData md = h.getConnection().getMetaData();
      String product = md.getDatabaseProductVersion().toLowerCase(java.util.Locale.ROOT);
      int major = md.getDatabaseMajorVersion();
      int minor = md.getDatabaseMinorVersion();
      boolean mariadb = product.contains("mariadb") || md.getDatabaseProductName().toLowerCase(java.util.Locale.ROOT).contains("mariadb");
      return mariadb ? (major > 10 || (major == 10 && minor >= 6)) : major >= 8;
      });
    } catch (java.sql.SQLException e) {
      return false;
    }
  }
}
