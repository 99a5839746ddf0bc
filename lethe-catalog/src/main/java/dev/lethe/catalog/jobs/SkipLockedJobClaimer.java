package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import java.util.Optional;

/**
 * The claim with {@code SELECT … FOR UPDATE SKIP LOCKED} (PostgreSQL, MariaDB 10.6+, MySQL 8+):
 * in one transaction, lock the oldest claimable row no other transaction holds, then claim it with
 * the same compare-and-set {@code UPDATE} as {@link CasJobClaimer}.
 */
public final class SkipLockedJobClaimer implements JobClaimer {
  private final CatalogDatabase database;
  private final DatabaseClock clock;

  /** A claimer over the database. */
  public SkipLockedJobClaimer(CatalogDatabase database) {
    this.database = database;
    this.clock = DatabaseClock.of(database.vendor());
  }

  @Override
  public Optional<Claimed> claim(long heartbeatTimeoutMs) {
    return database.background().inTransaction(h -> {
      CleanupJobDao jobs = new CleanupJobDao(h);
      long now = clock.millis(h);
      Optional<Long> id = jobs.lockFirstClaimable(now, now - heartbeatTimeoutMs);
      if (id.isEmpty() || !jobs.claim(id.get(), now, now - heartbeatTimeoutMs, WorkerIdentity.current())) {
        return Optional.<Claimed>empty();
      }
      return Optional.of(new Claimed(jobs.find(id.get()).orElseThrow(), new Lease(id.get(), now)));
    });
  }

  @Override
  public String name() {
    return "skip-locked";
  }
}
