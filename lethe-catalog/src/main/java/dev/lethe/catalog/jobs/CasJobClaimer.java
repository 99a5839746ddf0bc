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
    return database.background().withHandle(h -> {
      CleanupJobDao jobs = new CleanupJobDao(h);
      long now = clock.millis(h);
      List<Long> window = jobs.claimCandidates(now, now - heartbeatTimeoutMs, WINDOW);
      for (long id : window) {
        long at = clock.millis(h);
        if (jobs.claim(id, at, at - heartbeatTimeoutMs, WorkerIdentity.current())) {
          CleanupJob job = jobs.find(id).orElseThrow();
          return Optional.of(new Claimed(job, new Lease(id, at)));
        }
      }
      return Optional.empty();
    });
  }

  @Override
  public String name() {
    return "cas";
  }
}
