package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * An operator's control of cleanup jobs (docs/design/0440-job-control.md): {@link #retry} a
 * {@code FAILED} job, {@link #runNow} a {@code PENDING} one waiting out its backoff. Each action is
 * one guarded {@code UPDATE} in one transaction, read back in it; the workers are woken after the
 * commit, and an action that changed the row is told to the listener as an {@link OperatorEvent}
 * (docs/design/0447-operator-events.md). The management routes call only this class.
 */
public final class JobControl {
  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final Runnable wakeWorkers;
  private final PurgeEventListener listener;

  /**
   * @param database the catalog database holding the jobs
   * @param wakeWorkers wakes this process's purge workers (they poll anyway; this only saves the wait)
   * @param listener told of each action that changed a job, after its commit
   */
  public JobControl(CatalogDatabase database, Runnable wakeWorkers, PurgeEventListener listener) {
    this.database = database;
    this.clock = DatabaseClock.of(database.vendor());
    this.wakeWorkers = Objects.requireNonNull(wakeWorkers, "wakeWorkers");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Puts a {@code FAILED} job back to {@code PENDING}: attempts 0, no backoff, claimable at once.
   * Of two concurrent retries one wins; the other is refused with the state the winner left. In the
   * same transaction the job's claims are checked against every other owner: a FAILED job keeps its
   * claims (docs/design/0446-a-failed-job-keeps-its-locations.md), and one that failed before it did
   * (it holds none) claims again the location its metadata file is under, so no live entry can own it
   * while the purge may delete there.
   *
   * @param catalogId the catalog's id (a job of another catalog is unknown here)
   * @param catalogName the catalog's name, for messages
   * @param by the admin principal's name, for the {@link OperatorEvent.JobRetried} event
   * @return the job as it is after the retry
   * @throws NoSuchCleanupJobException no such job in that catalog (404)
   * @throws CleanupJobStateException the job is not {@code FAILED} (409); nothing changed
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException another entry or job now holds a
   *     location overlapping the job's (409, naming it); nothing changed
   */
  public CleanupJob retry(String catalogId, String catalogName, long jobId, String by) {
    Acted acted = act(catalogId, catalogName, jobId, "retry", "only a FAILED job can be retried",
        (h, dao, now) -> {
          if (!dao.retryFailed(catalogId, jobId, now)) {
            return false;
          }
          // a FAILED job keeps its claims (all its roots, 0004), checked again here; one that failed before
          // docs/design/0446-a-failed-job-keeps-its-locations.md released them, and must own its assumed
          // root again before it may delete there, or the retry is refused (rolled back)
          CleanupJob failed = dao.find(jobId).orElseThrow();
          LocationClaims.checkHeld(h, catalogId, ClaimOwner.job(jobId),
              () -> TableRoots.assumedFromMetadataFile(failed.metadataLocation()), now, "Cannot retry cleanup job " + jobId);
          return true;
        }, current -> false);
    wakeWorkers.run();
    OperatorEvents.deliver(listener, new OperatorEvent.JobRetried(acted.job(), by, acted.at()));
    return acted.job();
  }

  /**
   * Makes a {@code PENDING} job claimable now: a job waiting out its backoff gets its next attempt at
   * the database's now; one already claimable is answered as it is.
   *
   * @param catalogId the catalog's id (a job of another catalog is unknown here)
   * @param catalogName the catalog's name, for messages
   * @param by the admin principal's name, for the {@link OperatorEvent.JobRunNow} event (none when the
   *     job was not waiting: nothing changed)
   * @return the job as it is after the action
   * @throws NoSuchCleanupJobException no such job in that catalog (404)
   * @throws CleanupJobStateException the job is not {@code PENDING} (409); nothing changed
   */
  public CleanupJob runNow(String catalogId, String catalogName, long jobId, String by) {
    Acted acted = act(catalogId, catalogName, jobId, "run-now", "only a PENDING job can be run now",
        (h, dao, now) -> dao.runPendingNow(catalogId, jobId, now), current -> current.state() == CleanupJobState.PENDING);
    wakeWorkers.run();
    if (acted.changed()) {
      OperatorEvents.deliver(listener, new OperatorEvent.JobRunNow(acted.job(), by, acted.at()));
    }
    return acted.job();
  }

  /** The job read back, whether this action changed it, and the database's now in its transaction. */
  private record Acted(CleanupJob job, boolean changed, long at) {}

  @FunctionalInterface
  private interface Guarded {
    boolean apply(Handle h, CleanupJobDao dao, long now);
  }

  @FunctionalInterface
  private interface AlreadyDone {
    boolean test(CleanupJob current);
  }

  /** The guarded update, then the row read back in the same transaction; a refusal names what it read. */
  private Acted act(String catalogId, String catalogName, long jobId, String action, String allowed,
      Guarded update, AlreadyDone alreadyDone) {
    return database.jdbi().inTransaction(h -> {
      CleanupJobDao dao = new CleanupJobDao(h);
      long now = clock.millis(h);
      boolean changed = update.apply(h, dao, now);
      Optional<CleanupJob> current = dao.find(jobId).filter(j -> j.catalogId().equals(catalogId));
      CleanupJob job = current.orElseThrow(() -> new NoSuchCleanupJobException(catalogName, jobId));
      if (!changed && !alreadyDone.test(job)) {
        throw new CleanupJobStateException(action, job, allowed);
      }
      return new Acted(job, changed, now);
    });
  }
}
