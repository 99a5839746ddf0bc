package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.HoldDao.Hold;
import dev.lethe.catalog.entity.HoldDao.Kind;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Places, releases and lists legal holds (docs/design/0444-legal-holds.md), each in its own
 * transaction on the database clock; the management routes call only this class. A release keeps
 * the row (who released it and when) as the audit, and makes the jobs that waited for a hold in
 * that catalog claimable at once. Every place and release is logged under this class's name and,
 * after its commit, told to the listener as an {@link OperatorEvent} (docs/design/0447-operator-events.md).
 * Thread-safe.
 */
public final class Holds {
  private static final Logger LOG = LoggerFactory.getLogger(Holds.class);

  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final Supplier<String> ids;
  private final Runnable wakeWorkers;
  private final PurgeEventListener listener;

  /**
   * @param ids new hold ids (UUIDs)
   * @param wakeWorkers wakes this process's purge workers after a release (others poll)
   * @param listener told of each place and release, after its commit
   */
  public Holds(CatalogDatabase database, Supplier<String> ids, Runnable wakeWorkers, PurgeEventListener listener) {
    this.database = Objects.requireNonNull(database, "database");
    this.clock = DatabaseClock.of(database.vendor());
    this.ids = Objects.requireNonNull(ids, "ids");
    this.wakeWorkers = Objects.requireNonNull(wakeWorkers, "wakeWorkers");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** The catalog's holds not released, or with {@code includeReleased} every hold ever placed, by placement time. */
  public List<Hold> list(String catalogId, boolean includeReleased) {
    return database.jdbi().withHandle(h -> new HoldDao(h).list(catalogId, includeReleased));
  }

  /**
   * A hold as placed, and the table purge jobs it covers that were {@code RUNNING} when it was
   * (read under the claims lock, in the placing transaction): a job listed here may have deleted
   * files before the hold and may finish the delete batches already past their check; no other job
   * deletes a covered file after the hold commits (docs/design/0444-legal-holds.md "A hold and a
   * purge racing").
   *
   * @param runningPurges job ids, ascending; empty when no covered purge was running
   */
  public record Placed(Hold hold, List<Long> runningPurges) {}

  /** {@link Placed} and the holds on the same object it released. */
  private record PlacedReplacing(Placed placed, List<Hold> replaced) {}

  /**
   * Places a hold on the object, now (database clock), by {@code placedBy}. A hold not released on
   * the same object is released by {@code placedBy} in the same transaction (replaced; both rows stay
   * in the audit). The object need not exist.
   *
   * @param namespace stored namespace name (levels joined by U+001F), not empty
   * @param name the table's name; {@code ""} for a namespace
   * @param reason why; not blank, at most 1024 characters
   * @param expiresAt when the hold stops blocking (ms since epoch), or null for until released
   * @return the hold as stored, and the covered purges that were running
   * @throws IllegalArgumentException on an empty namespace, a missing or extra name, a blank or too
   *     long reason, or an end time not in the future (nothing changes)
   */
  public Placed place(CatalogRow catalog, Kind kind, String namespace, String name, String placedBy, String reason,
      Long expiresAt) {
    validate(kind, namespace, name);
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("Invalid hold: a reason is required");
    }
    if (reason.length() > 1024) {
      throw new IllegalArgumentException("Invalid hold: reason at most 1024 characters, got " + reason.length());
    }
    String catalogId = catalog.catalogId();
    PlacedReplacing done = database.jdbi().inTransaction(h -> {
      HoldDao holds = new HoldDao(h);
      // the lock of a drop's hold check and of a job's claim: each of them ran wholly before this
      // (its job is RUNNING, read below) or runs after this commits (and sees the hold)
      holds.lock();
      long now = clock.millis(h);
      if (expiresAt != null && expiresAt <= now) {
        throw new IllegalArgumentException("Invalid hold: expiresAt " + expiresAt + " is not in the future (now " + now + ")");
      }
      List<Hold> replaced = holds.release(catalogId, kind, namespace, name, placedBy, now);
      Hold hold = holds.insert(catalogId, new Hold(ids.get(), kind, namespace, name, placedBy, now, reason, expiresAt, null, null));
      List<Long> running = new CleanupJobDao(h).running(catalogId, CleanupObjectType.TABLE).stream()
          .filter(j -> hold.covers(j.namespace(), j.objectName(), now))
          .map(CleanupJob::jobId)
          .sorted()
          .toList();
      return new PlacedReplacing(new Placed(hold, running), replaced);
    });
    Placed placed = done.placed();
    LOG.info("Placed {}{}{}", placed.hold().describe(), expiresAt == null ? "" : " until " + expiresAt,
        placed.runningPurges().isEmpty() ? "" : "; purges running then: " + placed.runningPurges());
    OperatorEvents.deliver(listener, new OperatorEvent.HoldPlaced(catalog.name(), placed.hold(), done.replaced(),
        placed.runningPurges()));
    return placed;
  }

  /**
   * Releases the hold on the object (the row stays, with who and when), and makes the catalog's
   * jobs waiting for a hold claimable now (one still covered waits again at its claim).
   *
   * @return the holds released; empty if there was none not released
   */
  public List<Hold> release(CatalogRow catalog, Kind kind, String namespace, String name, String releasedBy) {
    validate(kind, namespace, name);
    String catalogId = catalog.catalogId();
    List<Hold> released = database.jdbi().inTransaction(h -> {
      long now = clock.millis(h);
      List<Hold> r = new HoldDao(h).release(catalogId, kind, namespace, name, releasedBy, now);
      if (!r.isEmpty()) {
        new CleanupJobDao(h).wakeHeld(catalogId, now);
      }
      return r;
    });
    released.forEach(r -> LOG.info("Released {} (released by {})", r.describe(), releasedBy));
    if (!released.isEmpty()) {
      wakeWorkers.run();
    }
    released.forEach(r -> OperatorEvents.deliver(listener, new OperatorEvent.HoldReleased(catalog.name(), r)));
    return released;
  }

  private static void validate(Kind kind, String namespace, String name) {
    if (namespace == null || namespace.isEmpty()) {
      throw new IllegalArgumentException("Invalid hold: namespace must not be empty");
    }
    if (kind == Kind.NAMESPACE ? !name.isEmpty() : name.isEmpty()) {
      throw new IllegalArgumentException(kind == Kind.NAMESPACE
          ? "Invalid hold: a namespace hold takes no name" : "Invalid hold: a table hold needs a name");
    }
    if (namespace.length() > 512 || name.length() > 255) {
      throw new IllegalArgumentException("Invalid hold: namespace at most 512 and name at most 255 characters");
    }
  }
}
