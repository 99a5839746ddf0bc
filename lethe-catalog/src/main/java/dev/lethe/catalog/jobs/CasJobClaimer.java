package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import java.util.List;
import java.util.Optional;

/**
 * The portable claim (docs/design/0201-cleanup-jobs.md §5): read a small window of claimable ids, then try a
 * compare-and-set {@code UPDATE} on each until one affects a row. Works on every database.
 */
public final class CasJobClaimer implements JobClaimer {
  /** Ids read per poll: only gives a loser alternatives; a worker still claims one job. */
  static final int WINDOW = 8;

  private final CatalogDatabase database;
  private final DatabaseClock clock;

  /** A claimer over the database. */
  public CasJobClaimer(CatalogDatabase database) {
    this.database = database;
    this.clock = DatabaseClock.of(database.vendor());
  }

  @Override
  public Optional<Claimed> claim(long heartbeatTimeoutMs) {
    List<Long> window = database.background().withHandle(h -> {
      long now = clock.millis(h);
      return new CleanupJobDao(h).claimCandidates(now, now - heartbeatTimeoutMs, WINDOW);
    });
    for (long id : window) {
      // the hold check and the claim in one transaction (docs/design/0444-legal-holds.md): a held
      // job is deferred instead
      Optional<Claimed> claimed = database.background().inTransaction(h -> {
        CleanupJobDao jobs = new CleanupJobDao(h);
        long at = clock.millis(h);
        // the row lock first, then the claims lock in the hold check (lock order of HeldJobs.holdingAtClaim)
        if (!jobs.lockIfClaimable(id, at, at - heartbeatTimeoutMs)) {
          return Optional.<Claimed>empty();
        }
        Optional<CleanupJob> job = jobs.find(id);
        if (job.isEmpty()) {
          return Optional.<Claimed>empty();
        }
        Optional<dev.lethe.catalog.entity.HoldDao.Hold> held = HeldJobs.holdingAtClaim(h, job.get(), at);
        if (held.isPresent()) {
          jobs.deferHeld(id, at, at - heartbeatTimeoutMs, HeldJobs.waitMs(held.get(), at), HeldJobs.reason(held.get()));
          return Optional.<Claimed>empty();
        }
        if (jobs.claim(id, at, at - heartbeatTimeoutMs, WorkerIdentity.current())) {
          return Optional.of(new Claimed(jobs.find(id).orElseThrow(), new Lease(id, at)));
        }
        return Optional.<Claimed>empty();
      });
      if (claimed.isPresent()) {
        return claimed;
      }
    }
    return Optional.empty();
  }

  @Override
  public String name() {
    return "cas";
  }
}
