package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.DatabaseClock;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Reads a catalog's {@link CatalogSummary} (docs/design/0450-catalog-summary.md): counts and minima
 * asked of the database, never whole tables read into memory. The queries run one after the other
 * on one handle, outside a transaction, so each figure is exact as of its own query and two figures
 * may straddle a change made between them (a job counted {@code PENDING} and, a moment later, among
 * the failed). Thread-safe.
 */
public final class CatalogSummaries {
  /** How many of the newest {@code FAILED} jobs a summary names. */
  public static final int FAILED_SHOWN = 5;

  private final CatalogDatabase database;
  private final DatabaseClock clock;

  /** Summaries of the catalogs stored in {@code database}. */
  public CatalogSummaries(CatalogDatabase database) {
    this.database = Objects.requireNonNull(database, "database");
    this.clock = DatabaseClock.of(database.vendor());
  }

  /** The catalog's figures now (database clock). */
  public CatalogSummary of(CatalogRow catalog) {
    String c = catalog.catalogId();
    return database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      CleanupJobDao jobs = new CleanupJobDao(h);
      OptionalLong oldest = jobs.oldestPendingCreatedAt(c);
      DeletionDao.RetainedCount retained = new DeletionDao(h).countRetained(c);
      return new CatalogSummary(now, jobs.countByState(c), oldest.isPresent() ? oldest.getAsLong() : null,
          jobs.list(c, null, null, CleanupJobState.FAILED, FAILED_SHOWN), retained.count(), retained.nearestDeadline(),
          new HoldDao(h).countActive(c, now), new ProtectionDao(h).count(c));
    });
  }
}
