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
      // a held job is deferred in this transaction and the next one tried (docs/design/0444-legal-holds.md)
      for (int tries = 0; tries < CasJobClaimer.WINDOW; tries++) {
        long now = clock.millis(h);
        Optional<Long> id = jobs.lockFirstClaimable(now, now - heartbeatTimeoutMs);
        if (id.isEmpty()) {
          return Optional.<Claimed>empty();
        }
        Optional<dev.lethe.catalog.entity.HoldDao.Hold> held = HeldJobs.holdingAtClaim(h, jobs.find(id.get()).orElseThrow(), now);
        if (held.isPresent()) {
          jobs.deferHeld(id.get(), now, now - heartbeatTimeoutMs, HeldJobs.waitMs(held.get(), now),
              HeldJobs.reason(held.get()));
          continue;
        }
        if (!jobs.claim(id.get(), now, now - heartbeatTimeoutMs, WorkerIdentity.current())) {
          return Optional.<Claimed>empty();
        }
        return Optional.of(new Claimed(jobs.find(id.get()).orElseThrow(), new Lease(id.get(), now)));
      }
      return Optional.<Claimed>empty();
    });
  }

  @Override
  public String name() {
    return "skip-locked";
  }
}
