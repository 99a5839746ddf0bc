package dev.lethe.catalog.location;

import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one guard of "one live owner" (docs/design/0001-purge-confinement-and-
 * ownership.md §3): no two entries that can become live may hold overlapping locations, however
 * the paths are spelled. Every path that makes an entry hold a location calls it inside the
 * transaction that changes the entry, after the entry's own locks: create and register of tables
 * and views ({@link #acquire}), commits that change a table's roots (again {@link #acquire}), undrop
 * and the synchronous purge ({@link #checkHeld}), every enqueue of a cleanup job ({@link #transfer}),
 * and drops ({@link #release}). A refusal is an {@link AlreadyExistsException} (409) naming the other
 * entry or job, and the caller's transaction rolls back.
 *
 * <p>Who holds claims: a live table; a table retained by a soft deletion until its purge takes it
 * over ({@code DELETED}, no job); a view (its current metadata file); a {@code PENDING}, {@code
 * RUNNING} or {@code FAILED} cleanup job (a retry may run a FAILED one again:
 * docs/design/0446-a-failed-job-keeps-its-locations.md). A claim whose owner is none of these any more (a path that forgot to
 * release it) is released when a decision meets it, so a missed release can never refuse a
 * request forever.
 *
 * <p>Every change first takes the claims lock ({@link LocationClaimDao#lock}), so two concurrent
 * registers of overlapping locations, on any replicas, cannot both pass.
 */
public final class LocationClaims {
  private static final Logger LOG = LoggerFactory.getLogger(LocationClaims.class);
  private static final String WHY = "one location has one live owner, so that a purge of either entry cannot delete "
      + "the other's files";

  private LocationClaims() {}

  /**
   * Makes {@code owner} hold exactly {@code roots}: refuses if another owner's claim overlaps one of
   * them, else replaces the owner's claims. Create, register, a view replace, and a commit that
   * changes a table's roots.
   *
   * @param h the handle of the transaction that changes the entry (its entity locks taken)
   * @param catalogId the catalog of the request: a refusal names a holder of another catalog by its kind only
   * @param owner the entry, not null
   * @param roots its roots (a view: its metadata file), not empty
   * @param now ms since epoch, stored as the claims' creation time
   * @param refusal the start of the 409 message, e.g. {@code "Cannot register db.copy"}
   * @throws AlreadyExistsException naming the other entry or job; nothing has changed
   */
  public static void acquire(Handle h, String catalogId, ClaimOwner owner, Collection<LocationPath> roots, long now, String refusal) {
    List<LocationPath> wanted = ClaimOverlap.minimal(roots);
    if (wanted.isEmpty()) {
      throw new IllegalArgumentException(refusal + ": no location to claim");
    }
    LocationClaimDao dao = new LocationClaimDao(h);
    dao.lock();
    refuseConflicts(h, catalogId, dao, wanted, Set.of(owner), refusal);
    List<LocationClaim> held = dao.findByOwner(owner, true);
    if (new HashSet<>(held.stream().map(LocationClaim::root).toList()).equals(new HashSet<>(wanted))) {
      return;
    }
    dao.deleteByOwner(owner);
    for (LocationPath root : wanted) {
      dao.insert(owner, root, now);
    }
  }

  /**
   * Makes {@code owner} hold only those of its claims whose root is in {@code keep}: a commit that
   * does not move the table but no longer references files under an earlier root releases it
   * (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md). Never claims anything new, so it
   * checks no other owner.
   *
   * @param now ms since epoch, stored as the kept claims' creation time
   * @return claims released
   */
  public static int narrow(Handle h, ClaimOwner owner, Collection<LocationPath> keep, long now) {
    LocationClaimDao dao = new LocationClaimDao(h);
    dao.lock();
    List<LocationPath> held = dao.findByOwner(owner, true).stream().map(LocationClaim::root).toList();
    List<LocationPath> kept = held.stream().filter(keep::contains).distinct().toList();
    if (kept.size() == held.size()) {
      return 0;
    }
    dao.deleteByOwner(owner);
    for (LocationPath root : kept) {
      dao.insert(owner, root, now);
    }
    return held.size() - kept.size();
  }

  /**
   * The roots {@code owner} holds now, read without the claims lock (a commit's early look; the
   * decision is taken again under the lock).
   */
  public static List<LocationPath> held(Handle h, ClaimOwner owner) {
    return new LocationClaimDao(h).findByOwner(owner, false).stream().map(LocationClaim::root).toList();
  }

  /**
   * An early, lock-free check before a file is written (a create or a commit that moves a table):
   * refuses if another owner that still holds its claim overlaps one of {@code roots}. Changes
   * nothing; {@link #acquire} decides again under the lock.
   *
   * @param catalogId the catalog of the request, as for {@link #acquire}
   * @param owner the entry, or null for one that does not exist yet
   * @throws AlreadyExistsException naming the other entry or job
   */
  public static void precheck(Handle h, String catalogId, ClaimOwner owner, Collection<LocationPath> roots, String refusal) {
    LocationClaimDao dao = new LocationClaimDao(h);
    List<ClaimOverlap.Conflict> conflicts = ClaimOverlap.conflicts(roots, owner == null ? Set.of() : Set.of(owner),
        dao.overlapping(roots, false));
    for (ClaimOverlap.Conflict c : conflicts) {
      Optional<Holder> holder = holder(h, c.other().owner());
      if (holder.isPresent()) {
        throw refusal(refusal, catalogId, c, holder.get());
      }
    }
  }

  /**
   * An early, lock-free check before a new file is written into {@code directory} (a view's next
   * metadata file, whose name is not known yet): refuses if another owner that still holds its claim
   * holds {@code directory} or an ancestor of it, i.e. the file would lie inside another entry's
   * location. Files of other owners inside the directory (views sharing a location) do not conflict.
   *
   * @throws AlreadyExistsException naming the other entry or job
   */
  public static void precheckDirectory(Handle h, String catalogId, ClaimOwner owner, LocationPath directory, String refusal) {
    LocationClaimDao dao = new LocationClaimDao(h);
    for (LocationClaim c : dao.overlapping(List.of(directory), false)) {
      if (!c.owner().equals(owner) && c.root().contains(directory)) {
        Optional<Holder> holder = holder(h, c.owner());
        if (holder.isPresent()) {
          throw refusal(refusal, catalogId, new ClaimOverlap.Conflict(directory, c), holder.get());
        }
      }
    }
  }

  /**
   * Refuses unless {@code owner}'s claims overlap no other owner's: undrop (a retained table comes
   * back), and the synchronous purge (nothing may share the location it deletes). An owner without
   * claims (a row older than location claims that the start-up backfill could not reach) gets
   * {@code assumed}.
   *
   * @param catalogId the catalog of the request, as for {@link #acquire}
   * @param assumed the roots to claim when the owner holds none, e.g. {@link
   *     TableRoots#assumedFromMetadataFile}
   * @throws AlreadyExistsException naming the other entry or job; nothing has changed
   */
  public static void checkHeld(Handle h, String catalogId, ClaimOwner owner, Supplier<List<LocationPath>> assumed, long now, String refusal) {
    LocationClaimDao dao = new LocationClaimDao(h);
    dao.lock();
    List<LocationClaim> held = dao.findByOwner(owner, true);
    List<LocationPath> roots = held.isEmpty() ? ClaimOverlap.minimal(assumed.get()) : held.stream().map(LocationClaim::root).toList();
    refuseConflicts(h, catalogId, dao, roots, Set.of(owner), refusal);
    if (held.isEmpty()) {
      for (LocationPath root : roots) {
        dao.insert(owner, root, now);
      }
    }
  }

  /**
   * Hands {@code from}'s claims to {@code to} after checking that no other owner overlaps them: every
   * enqueue of a cleanup job (async drop, the durable synchronous purge, soft-deletion expiry and
   * purge-now), in the transaction that removes (or retires) the entry and inserts the job.
   *
   * @param catalogId the catalog of the request, as for {@link #acquire}
   * @param from the dropped table or view
   * @param to the cleanup job that purges it
   * @param assumed the roots the job claims when {@code from} holds none
   * @throws AlreadyExistsException naming the other entry or job; nothing has changed
   */
  public static void transfer(Handle h, String catalogId, ClaimOwner from, ClaimOwner to, Supplier<List<LocationPath>> assumed, long now,
      String refusal) {
    LocationClaimDao dao = new LocationClaimDao(h);
    dao.lock();
    List<LocationClaim> held = dao.findByOwner(from, true);
    List<LocationPath> roots = held.isEmpty() ? ClaimOverlap.minimal(assumed.get()) : held.stream().map(LocationClaim::root).toList();
    refuseConflicts(h, catalogId, dao, roots, Set.of(from, to), refusal);
    if (held.isEmpty()) {
      for (LocationPath root : roots) {
        dao.insert(to, root, now);
      }
    } else {
      dao.transfer(from, to);
    }
  }

  /**
   * Releases every claim of {@code owner}: a metadata-only drop, a view drop, a job that reached
   * {@code SUCCEEDED} or was abandoned; in the transaction that ends the ownership.
   *
   * @return claims released
   */
  public static int release(Handle h, ClaimOwner owner) {
    LocationClaimDao dao = new LocationClaimDao(h);
    dao.lock();
    return dao.deleteByOwner(owner);
  }

  /**
   * The claims of other owners inside {@code root}: what the sweep of a purge must not enter. See
   * {@link LocationClaimDao#claimedInside}.
   */
  public static List<LocationPath> claimedInside(Handle h, LocationPath root, ClaimOwner exclude) {
    return new LocationClaimDao(h).claimedInside(root, exclude);
  }

  private static void refuseConflicts(Handle h, String catalogId, LocationClaimDao dao, List<LocationPath> roots, Set<ClaimOwner> selves,
      String refusal) {
    List<ClaimOverlap.Conflict> conflicts = ClaimOverlap.conflicts(roots, selves, dao.overlapping(roots, true));
    Map<ClaimOwner, Optional<Holder>> holders = new HashMap<>();
    List<ClaimOwner> stale = new ArrayList<>();
    for (ClaimOverlap.Conflict c : conflicts) {
      Optional<Holder> holder = holders.computeIfAbsent(c.other().owner(), o -> holder(h, o));
      if (holder.isPresent()) {
        throw refusal(refusal, catalogId, c, holder.get());
      }
      if (!stale.contains(c.other().owner())) {
        stale.add(c.other().owner());
      }
    }
    for (ClaimOwner o : stale) {
      // its owner no longer holds locations: a path forgot to release them; they must not block anyone
      int n = dao.deleteByOwner(o);
      LOG.warn("Released {} stale location claim(s) of {}, which no longer holds locations", n, o);
    }
  }

  private static AlreadyExistsException refusal(String refusal, String catalogId, ClaimOverlap.Conflict c, Holder holder) {
    return new AlreadyExistsException("%s: %s (%s)", refusal, overlap(catalogId, c, holder), WHY);
  }

  /**
   * The overlap part of a refusal as the requester of {@code catalogId} may read it: a holder in
   * another catalog is named by its kind only, without name or root
   * (docs/design/0424-what-a-reader-sees-of-paths.md).
   *
   * @param catalogId the catalog of the request, not null
   * @return e.g. {@code "location /w/t overlaps /w, held by live table db.orig"}
   */
  static String overlap(String catalogId, ClaimOverlap.Conflict c, Holder holder) {
    if (!holder.catalogId().equals(catalogId)) {
      return "location " + c.requested() + " overlaps a location held by " + holder.kind() + " in another catalog";
    }
    return c.requested().equals(c.other().root())
        ? "location " + c.requested() + " is held by " + holder.text()
        : "location " + c.requested() + " overlaps " + c.other().root() + ", held by " + holder.text();
  }

  /**
   * The entry behind a claim, for a refusal.
   *
   * @param catalogId its catalog's id, not null
   * @param kind e.g. {@code "a table"}, for a requester of another catalog
   * @param text the full description, e.g. {@code "live table db.orig"}
   */
  record Holder(String catalogId, String kind, String text) {}

  /** {@link #describeHolder} with the holder's catalog. */
  static Optional<Holder> holder(Handle h, ClaimOwner owner) {
    switch (owner.kind()) {
      case TABLE: {
        Optional<TableRow> row = new TableDao(h).findById(owner.id());
        return row.flatMap(r -> describeHolder(h, owner).map(t -> new Holder(r.catalogId(), "a table", t)));
      }
      case VIEW:
        return new ViewDao(h).findById(owner.id())
            .flatMap(v -> describeHolder(h, owner).map(t -> new Holder(v.catalogId(), "a view", t)));
      case JOB:
        return new LocationClaimDao(h).holdingJob(owner.jobId())
            .flatMap(j -> describeHolder(h, owner).map(t -> new Holder(j.catalogId(), "a dropped table or view", t)));
      default:
        throw new IllegalStateException("Unknown claim owner kind " + owner.kind());
    }
  }

  /**
   * Describes the entry behind a claim owner for a refusal, if it still holds locations: a live
   * table, a table retained by a soft deletion that no purge has taken over, a view, or a cleanup job
   * that may still delete ({@code PENDING}, {@code RUNNING}, {@code FAILED}).
   *
   * @return the description (e.g. {@code "live table db.orig"}), or empty if the owner no longer
   *     holds locations
   */
  public static Optional<String> describeHolder(Handle h, ClaimOwner owner) {
    switch (owner.kind()) {
      case TABLE: {
        Optional<TableRow> row = new TableDao(h).findById(owner.id());
        if (row.isEmpty() || row.get().deletedAt() != 0) {
          return Optional.empty();
        }
        String name = name(h, row.get().namespaceId(), row.get().name());
        if (row.get().deletionId() == null) {
          return Optional.of("live table " + name);
        }
        if (new LocationClaimDao(h).deletionRetains(row.get().deletionId())) {
          return Optional.of("the dropped table " + name + ", retained by deletion " + row.get().deletionId()
              + " until it is undropped or purged");
        }
        return Optional.empty();
      }
      case VIEW:
        return new ViewDao(h).findById(owner.id())
            .map(v -> "view " + name(h, v.namespaceId(), v.name()) + " (its metadata file)");
      case JOB: {
        Optional<LocationClaimDao.HoldingJob> job = new LocationClaimDao(h).holdingJob(owner.jobId());
        if (job.isEmpty() || !job.get().holdsLocations()) {
          return Optional.empty();
        }
        LocationClaimDao.HoldingJob j = job.get();
        String text = "cleanup job " + j.jobId() + " (" + j.state() + ") purging the dropped "
            + j.objectType().toLowerCase(Locale.ROOT) + " "
            + String.join(".", NamespaceNames.decode(j.namespace()).levels()) + "." + j.objectName();
        // docs/design/0446-a-failed-job-keeps-its-locations.md: what frees it is an operator's action
        return Optional.of(j.active() ? text : text + ", which keeps the location until an operator retries the job "
            + "(lethe catalog jobs retry " + j.jobId() + ") or abandons it (lethe catalog jobs abandon --reason TEXT "
            + j.jobId() + ")");
      }
      default:
        throw new IllegalStateException("Unknown claim owner kind " + owner.kind());
    }
  }

  private static String name(Handle h, String namespaceId, String name) {
    return new NamespaceDao(h).findById(namespaceId)
        .map(ns -> String.join(".", NamespaceNames.decode(ns.name()).levels()) + "." + name)
        .orElse(name);
  }
}
