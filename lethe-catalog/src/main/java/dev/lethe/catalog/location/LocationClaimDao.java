package dev.lethe.catalog.location;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * SQL of tables {@code lethe_location_claim}, {@code lethe_location_claim_prefix} and {@code
 * lethe_location_lock}: the one place that reads or writes them (docs/design/0001-purge-confinement-
 * and-ownership.md §3). The rules are in {@link ClaimOverlap} (pure) and {@link LocationClaims}
 * (the guard every path calls).
 *
 * <p>Reads that decide a change ({@link #overlapping}, an owner's claims) are locking reads ({@code
 * FOR UPDATE}), made under {@link #lock}; every vendor runs {@code READ COMMITTED}
 * (docs/design/0002-location-claims-schema-and-backfill.md §2), so the owner rows read after them
 * are current too.
 */
public final class LocationClaimDao {
  private static final String COLUMNS = "claim_id, owner_kind, owner_id, root";

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public LocationClaimDao(Handle handle) {
    this.handle = handle;
  }

  /**
   * Takes the claims lock ({@code lethe_location_lock} row 1, {@code FOR UPDATE}) until the
   * transaction ends. Every change of claims takes it, last, after any namespace, table or deletion
   * record lock.
   *
   * @throws IllegalStateException if the lock row is missing (migration V4 not applied)
   */
  public void lock() {
    handle.createQuery("SELECT lock_id FROM lethe_location_lock WHERE lock_id = 1 FOR UPDATE")
        .mapTo(Integer.class)
        .findOne()
        .orElseThrow(() -> new IllegalStateException("Cannot lock location claims: lethe_location_lock has no row 1"));
  }

  /**
   * Claims of any owner that may overlap one of {@code roots}: those whose root is an
   * ancestor-or-self of a requested root, and those that have a requested root as an
   * ancestor-or-self. Found by hash, so the caller decides with {@link ClaimOverlap#conflicts}.
   *
   * @param roots not null; empty gives an empty list
   * @param locking true for locking reads ({@code FOR UPDATE}: the decision of a change, under
   *     {@link #lock}); false for an early check that changes nothing
   * @return candidates, by claim id, each once
   */
  public List<LocationClaim> overlapping(Collection<LocationPath> roots, boolean locking) {
    String forUpdate = locking ? " FOR UPDATE" : "";
    if (roots.isEmpty()) {
      return List.of();
    }
    Set<String> ancestors = new LinkedHashSet<>();
    Set<String> selves = new LinkedHashSet<>();
    for (LocationPath root : roots) {
      ancestors.addAll(ClaimOverlap.prefixHashes(root));
      selves.add(ClaimOverlap.hash(root));
    }
    Map<Long, LocationClaim> out = new TreeMap<>();
    handle.createQuery("SELECT " + COLUMNS + " FROM lethe_location_claim WHERE root_hash IN (<hashes>)" + forUpdate)
        .bindList("hashes", new ArrayList<>(ancestors))
        .map(ROWS)
        .forEach(c -> out.put(c.claimId(), c));
    List<Long> inside = handle.createQuery(
            "SELECT claim_id FROM lethe_location_claim_prefix WHERE prefix_hash IN (<hashes>)" + forUpdate)
        .bindList("hashes", new ArrayList<>(selves))
        .mapTo(Long.class)
        .list();
    List<Long> missing = inside.stream().filter(id -> !out.containsKey(id)).distinct().toList();
    if (!missing.isEmpty()) {
      handle.createQuery("SELECT " + COLUMNS + " FROM lethe_location_claim WHERE claim_id IN (<ids>)" + forUpdate)
          .bindList("ids", missing)
          .map(ROWS)
          .forEach(c -> out.put(c.claimId(), c));
    }
    return List.copyOf(out.values());
  }

  /**
   * The claims of other owners that lie inside {@code root} (or are {@code root}): what a purge's
   * sweep of {@code root} must not enter (docs/design/0001-purge-confinement-and-ownership.md §5).
   * One indexed lookup; no lock. Claims of an owner that no longer holds them (which {@link
   * LocationClaims} releases when it meets them) may be included: skipping them keeps files, never
   * deletes any.
   *
   * @param root the root being swept, not null
   * @param exclude the owner whose own claims are not returned (the job sweeping), or null for none
   * @return the claimed roots inside {@code root}, shortest path first; empty if none
   */
  public List<LocationPath> claimedInside(LocationPath root, ClaimOwner exclude) {
    List<LocationClaim> claims = handle.createQuery("SELECT " + COLUMNS + " FROM lethe_location_claim WHERE claim_id IN "
            + "(SELECT claim_id FROM lethe_location_claim_prefix WHERE prefix_hash = :h) ORDER BY claim_id")
        .bind("h", ClaimOverlap.hash(root))
        .map(ROWS)
        .list();
    return claims.stream()
        .filter(c -> !c.owner().equals(exclude) && root.contains(c.root()))
        .map(LocationClaim::root)
        .distinct()
        .sorted(java.util.Comparator.comparingInt((LocationPath p) -> p.path().length()).thenComparing(LocationPath::toString))
        .toList();
  }

  /** The claims of an owner, by claim id; empty if it holds none. No lock. */
  public List<LocationClaim> findByOwner(ClaimOwner owner) {
    return findByOwner(owner, false);
  }

  /**
   * The claims of an owner, by claim id; empty if it holds none.
   *
   * @param locking true for a locking read (under {@link #lock}, see the class comment)
   */
  public List<LocationClaim> findByOwner(ClaimOwner owner, boolean locking) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_location_claim WHERE owner_kind = :kind "
            + "AND owner_id = :id ORDER BY claim_id" + (locking ? " FOR UPDATE" : ""))
        .bindMethods(owner)
        .map(ROWS)
        .list();
  }

  /**
   * Inserts one claim and its prefix rows. Call under {@link #lock}, after the overlap decision.
   *
   * @param now ms since epoch, stored as {@code created_at}
   * @return the new claim id
   */
  public long insert(ClaimOwner owner, LocationPath root, long now) {
    long id = handle.createUpdate("INSERT INTO lethe_location_claim (owner_kind, owner_id, root, root_hash, created_at) "
            + "VALUES (:kind, :id, :root, :hash, :now)")
        .bindMethods(owner)
        .bind("root", root.toString())
        .bind("hash", ClaimOverlap.hash(root))
        .bind("now", now)
        .executeAndReturnGeneratedKeys("claim_id")
        .mapTo(Long.class)
        .one();
    PreparedBatch batch = handle.prepareBatch("INSERT INTO lethe_location_claim_prefix (prefix_hash, claim_id) VALUES (:h, :id)");
    for (String h : new LinkedHashSet<>(ClaimOverlap.prefixHashes(root))) {
      batch.bind("h", h).bind("id", id).add();
    }
    batch.execute();
    return id;
  }

  /**
   * Removes every claim of an owner (its prefix rows go with them). Call under {@link #lock}.
   *
   * @return claims removed
   */
  public int deleteByOwner(ClaimOwner owner) {
    return handle.createUpdate("DELETE FROM lethe_location_claim WHERE owner_kind = :kind AND owner_id = :id")
        .bindMethods(owner)
        .execute();
  }

  /**
   * Hands every claim of {@code from} to {@code to} (a dropped table's claims to its cleanup job).
   * Call under {@link #lock}.
   *
   * @return claims moved
   */
  public int transfer(ClaimOwner from, ClaimOwner to) {
    return handle.createUpdate("UPDATE lethe_location_claim SET owner_kind = :to.kind, owner_id = :to.id "
            + "WHERE owner_kind = :kind AND owner_id = :id")
        .bindMethods("to", to)
        .bindMethods(from)
        .execute();
  }

  /**
   * An entry that should hold claims but holds none (written before location claims existed): the
   * input of {@link ClaimBackfill}.
   *
   * @param owner the table, view or job
   * @param catalogId its catalog (whose FileIO reads the metadata)
   * @param metadataLocation its current metadata file
   * @param view whether the metadata is a view's (its claim is the file itself)
   */
  public record Unclaimed(ClaimOwner owner, String catalogId, String metadataLocation, boolean view) {}

  /**
   * Tables that hold locations (live, or retained with no purge attached) but no claim, by table
   * id after {@code afterTableId}.
   *
   * @param afterTableId exclusive lower bound ({@code ""} for the start)
   * @param limit most rows
   */
  public List<Unclaimed> unclaimedTables(String afterTableId, int limit) {
    org.jdbi.v3.core.statement.Query q = handle.createQuery("SELECT t.table_id, t.catalog_id, t.metadata_location "
            + "FROM lethe_table t WHERE t.table_id > :after AND t.deleted_at = 0 AND (t.deletion_id IS NULL OR EXISTS "
            + "(SELECT 1 FROM lethe_entity_deletion d WHERE d.deletion_id = t.deletion_id AND d.state = 'DELETED' "
            + "AND d.purge_job_id IS NULL)) AND NOT EXISTS (SELECT 1 FROM lethe_location_claim c "
            + "WHERE c.owner_kind = 'TABLE' AND c.owner_id = t.table_id) ORDER BY t.table_id")
        .bind("after", afterTableId);
    q.setMaxRows(limit);
    return q.map((rs, ctx) -> new Unclaimed(ClaimOwner.table(rs.getString("table_id")), rs.getString("catalog_id"),
            rs.getString("metadata_location"), false))
        .list();
  }

  /** Views without a claim, by view id after {@code afterViewId}. */
  public List<Unclaimed> unclaimedViews(String afterViewId, int limit) {
    org.jdbi.v3.core.statement.Query q = handle.createQuery("SELECT v.view_id, v.catalog_id, v.metadata_location "
            + "FROM lethe_view v WHERE v.view_id > :after AND NOT EXISTS (SELECT 1 FROM lethe_location_claim c "
            + "WHERE c.owner_kind = 'VIEW' AND c.owner_id = v.view_id) ORDER BY v.view_id")
        .bind("after", afterViewId);
    q.setMaxRows(limit);
    return q.map((rs, ctx) -> new Unclaimed(ClaimOwner.view(rs.getString("view_id")), rs.getString("catalog_id"),
            rs.getString("metadata_location"), true))
        .list();
  }

  /**
   * {@code PENDING}/{@code RUNNING} cleanup jobs without a claim. Active jobs are few (a backlog of
   * drops), so they are read whole and filtered here rather than by a vendor-specific cast.
   */
  public List<Unclaimed> unclaimedJobs() {
    List<Unclaimed> active = handle.createQuery("SELECT job_id, object_type, catalog_id, metadata_location "
            + "FROM lethe_cleanup_job WHERE state IN ('PENDING', 'RUNNING') ORDER BY job_id")
        .map((rs, ctx) -> new Unclaimed(ClaimOwner.job(rs.getLong("job_id")), rs.getString("catalog_id"),
            rs.getString("metadata_location"), "VIEW".equals(rs.getString("object_type"))))
        .list();
    Set<String> claimed = new java.util.HashSet<>(handle.createQuery(
            "SELECT DISTINCT owner_id FROM lethe_location_claim WHERE owner_kind = 'JOB'")
        .mapTo(String.class)
        .list());
    return active.stream().filter(u -> !claimed.contains(u.owner().id())).toList();
  }

  /**
   * The cleanup job behind a {@code JOB} owner, as the guard names it in a refusal: read here from
   * {@code lethe_cleanup_job}, as {@link #unclaimedJobs} does, so that the claims need nothing of
   * the queue's code (docs/design/0210-catalog-drop-and-jobs-layout.md).
   *
   * @param catalogId the catalog the object was dropped from
   * @param state the job's state name, e.g. {@code PENDING}
   * @param objectType {@code TABLE} or {@code VIEW}
   * @param namespace levels joined by U+001F
   */
  public record HoldingJob(long jobId, String catalogId, String state, String objectType, String namespace,
      String objectName) {
    /** {@code PENDING} or {@code RUNNING}: a worker runs it or will. */
    public boolean active() {
      return "PENDING".equals(state) || "RUNNING".equals(state);
    }

    /**
     * {@code PENDING}, {@code RUNNING} or {@code FAILED}: the job may still delete files, so it holds
     * its locations (docs/design/0446-a-failed-job-keeps-its-locations.md).
     */
    public boolean holdsLocations() {
      return active() || "FAILED".equals(state);
    }
  }

  /** The job row of {@code jobId}, read without a lock (the caller holds {@link #lock} when it decides). */
  public Optional<HoldingJob> holdingJob(long jobId) {
    return handle.createQuery("SELECT job_id, catalog_id, state, object_type, namespace, object_name "
            + "FROM lethe_cleanup_job WHERE job_id = :id")
        .bind("id", jobId)
        .map((rs, ctx) -> new HoldingJob(rs.getLong("job_id"), rs.getString("catalog_id"), rs.getString("state"),
            rs.getString("object_type"), rs.getString("namespace"), rs.getString("object_name")))
        .findOne();
  }

  /**
   * Whether the soft deletion {@code deletionId} still retains its table's locations: {@code
   * DELETED} with no purge job attached (the predicate of {@link #unclaimedTables}).
   */
  public boolean deletionRetains(String deletionId) {
    return handle.createQuery("SELECT state, purge_job_id FROM lethe_entity_deletion WHERE deletion_id = :id")
        .bind("id", deletionId)
        .map((rs, ctx) -> "DELETED".equals(rs.getString("state")) && rs.getObject("purge_job_id") == null)
        .findOne()
        .orElse(false);
  }

  /** Number of claim rows (tests and metrics). */
  public long count() {
    return handle.createQuery("SELECT COUNT(*) FROM lethe_location_claim").mapTo(Long.class).one();
  }

  /** Every claim, by claim id (tests and the randomized oracle; not for request paths). */
  public List<LocationClaim> all() {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_location_claim ORDER BY claim_id")
        .map(ROWS)
        .list();
  }

  /** A claim row; the owner's kind and id (bound with {@code bindMethods(owner)} as {@code :kind}, {@code :id}) are two columns. */
  private static final RowMapper<LocationClaim> ROWS = (rs, ctx) -> new LocationClaim(rs.getLong("claim_id"),
      new ClaimOwner(ClaimOwner.Kind.valueOf(rs.getString("owner_kind")), rs.getString("owner_id")),
      LocationPath.parse(rs.getString("root")));
}
