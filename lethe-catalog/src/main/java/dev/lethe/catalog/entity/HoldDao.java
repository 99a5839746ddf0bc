package dev.lethe.catalog.entity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * SQL of table {@code lethe_hold} and the one rule of what a legal hold covers
 * (docs/design/0444-legal-holds.md). Every purge decision reads {@link #covering} in the
 * transaction that commits it: the drop that enqueues a purge, the job claim, the expiry and
 * purge-now claims, and the runner between phases.
 */
public final class HoldDao {
  /** What a hold covers. */
  public enum Kind { TABLE, NAMESPACE }

  /**
   * One hold, active or released (the audit row).
   *
   * @param holdId its id (a UUID)
   * @param kind what it covers
   * @param namespace the namespace levels joined by U+001F (for {@link Kind#NAMESPACE} the held
   *     namespace itself)
   * @param name the table's name; {@code ""} for {@link Kind#NAMESPACE}
   * @param placedBy the admin principal who placed it
   * @param placedAt when, ms since epoch (database clock)
   * @param reason why; not empty
   * @param expiresAt when it stops blocking, ms since epoch; null until released
   * @param releasedBy who released it; null while not released
   * @param releasedAt when, ms since epoch (database clock); null while not released
   */
  public record Hold(String holdId, Kind kind, String namespace, String name, String placedBy, long placedAt,
      String reason, Long expiresAt, String releasedBy, Long releasedAt) {
    /** Whether it blocks purges at {@code now} (ms since epoch, database clock): not released, not past its end. */
    public boolean activeAt(long now) {
      return releasedAt == null && (expiresAt == null || now < expiresAt);
    }

    /**
     * The rule of coverage: whether this hold, active at {@code now}, covers table {@code name} in
     * namespace {@code namespace} (stored form) — a hold on that table, or on its namespace or any
     * ancestor of it.
     */
    public boolean covers(String tableNamespace, String tableName, long now) {
      if (!activeAt(now)) {
        return false;
      }
      return kind == Kind.NAMESPACE
          ? tableNamespace.equals(namespace) || tableNamespace.startsWith(namespace + NamespaceNames.SEPARATOR)
          : namespace.equals(tableNamespace) && name.equals(tableName);
    }

    /** "hold on table a.b placed by alice (reason)" for messages. */
    public String describe() {
      String ns = namespace.replace(NamespaceNames.SEPARATOR, ".");
      String what = kind == Kind.NAMESPACE ? "namespace " + ns : "table " + ns + "." + name;
      return "legal hold " + holdId + " on " + what + " placed by " + placedBy + " (" + reason + ")";
    }
  }

  private static final String COLUMNS =
      "hold_id, kind, namespace, name, placed_by, placed_at, reason, expires_at, released_by, released_at";

  private static final RowMapper<Hold> ROWS = (rs, ctx) -> {
    long e = rs.getLong("expires_at");
    Long expires = rs.wasNull() ? null : e;
    long r = rs.getLong("released_at");
    Long released = rs.wasNull() ? null : r;
    return new Hold(rs.getString("hold_id"), Kind.valueOf(rs.getString("kind")), rs.getString("namespace"),
        rs.getString("name"), rs.getString("placed_by"), rs.getLong("placed_at"), rs.getString("reason"), expires,
        rs.getString("released_by"), released);
  };

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public HoldDao(Handle handle) {
    this.handle = handle;
  }

  /**
   * The catalog's holds by placement time: those not released, or with {@code includeReleased}
   * every row ever placed (the audit).
   */
  public List<Hold> list(String catalogId, boolean includeReleased) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_hold WHERE catalog_id = :c"
            + (includeReleased ? "" : " AND released_at IS NULL") + " ORDER BY placed_at, hold_id")
        .bind("c", catalogId)
        .map(ROWS)
        .list();
  }

  /**
   * How many of the catalog's holds are in force at {@code now} (ms since epoch, database clock):
   * not released and not past their end, as {@link Hold#activeAt} says; one count. The listing
   * ({@link #list} without released rows) also shows holds past their end until someone releases them.
   */
  public long countActive(String catalogId, long now) {
    return handle.createQuery("SELECT COUNT(*) FROM lethe_hold WHERE catalog_id = :c AND released_at IS NULL "
            + "AND (expires_at IS NULL OR expires_at > :now)")
        .bind("c", catalogId)
        .bind("now", now)
        .mapTo(Long.class)
        .one();
  }

  /** Inserts a hold row as given. */
  public Hold insert(String catalogId, Hold hold) {
    handle.createUpdate("INSERT INTO lethe_hold (hold_id, catalog_id, hold_key, kind, namespace, name, placed_by, "
            + "placed_at, reason, expires_at, released_by, released_at) VALUES (:id, :c, :k, :kind, :ns, :name, :by, :at, "
            + ":reason, :expires, NULL, NULL)")
        .bind("id", hold.holdId())
        .bind("c", catalogId)
        .bind("k", key(hold.kind(), hold.namespace(), hold.name()))
        .bind("kind", hold.kind().name())
        .bind("ns", hold.namespace())
        .bind("name", hold.name())
        .bind("by", hold.placedBy())
        .bind("at", hold.placedAt())
        .bind("reason", hold.reason())
        .bind("expires", hold.expiresAt())
        .execute();
    return hold;
  }

  /**
   * Marks the not-released holds on that object released (the rows stay, as the audit).
   *
   * @return the holds this call released, as they are now (not one a concurrent release changed first)
   */
  public List<Hold> release(String catalogId, Kind kind, String namespace, String name, String releasedBy, long at) {
    List<String> seen = handle.createQuery("SELECT hold_id FROM lethe_hold WHERE catalog_id = :c AND hold_key = :k "
            + "AND released_at IS NULL")
        .bind("c", catalogId)
        .bind("k", key(kind, namespace, name))
        .mapTo(String.class)
        .list();
    List<String> ids = new java.util.ArrayList<>();
    for (String id : seen) {
      // the row count is the decision: of two concurrent releases one changes the row, and only it
      // reports the hold (docs/design/0447-operator-events.md: no event for a no-op)
      if (handle.createUpdate("UPDATE lethe_hold SET released_by = :by, released_at = :at WHERE hold_id = :id "
              + "AND released_at IS NULL")
          .bind("by", releasedBy)
          .bind("at", at)
          .bind("id", id)
          .execute() == 1) {
        ids.add(id);
      }
    }
    return ids.isEmpty() ? List.of() : handle.createQuery("SELECT " + COLUMNS + " FROM lethe_hold WHERE hold_id IN (<ids>)")
        .bindList("ids", ids)
        .map(ROWS)
        .list();
  }

  /**
   * The hold that covers table {@code name} of namespace {@code namespace} (stored form) at {@code
   * now} (ms since epoch, database clock), if any ({@link Hold#covers}).
   */
  public Optional<Hold> covering(String catalogId, String namespace, String name, long now) {
    return list(catalogId, false).stream().filter(h -> h.covers(namespace, name, now)).findFirst();
  }

  /**
   * The hold that covers the table named {@code name} in the namespace with id {@code namespaceId}
   * at {@code now}, if any; empty when the namespace is gone.
   */
  public Optional<Hold> coveringTable(String namespaceId, String name, long now) {
    return new NamespaceDao(handle).findById(namespaceId)
        .flatMap(ns -> covering(ns.catalogId(), ns.name(), name, now));
  }

  /**
   * Refuses a purge of the table named {@code name} in the namespace with id {@code namespaceId}
   * if a hold covers it at {@code now}. Takes the claims lock first ({@link #lock}), so a hold placed
   * concurrently either committed before (and is read here) or waits for this transaction (and
   * sees its job {@code RUNNING}). Call it after the table row's lock (lock order, as protections).
   *
   * @param what the refused action, e.g. "Cannot purge table db.t"
   * @throws HeldException naming the hold; the caller's transaction should roll back
   */
  public void check(String namespaceId, String name, long now, String what) {
    lock();
    Optional<Hold> h = coveringTable(namespaceId, name, now);
    if (h.isPresent()) {
      throw new HeldException(what, h.get());
    }
  }

  /**
   * Takes the catalog database's claims lock ({@code lethe_location_lock} row 1, the lock of
   * location claims and protections) until the transaction ends: placing a hold, a drop's check of
   * holds and a job's claim then run one after the other (docs/design/0444-legal-holds.md "A hold
   * and a purge racing").
   */
  public void lock() {
    handle.createQuery("SELECT lock_id FROM lethe_location_lock WHERE lock_id = 1 FOR UPDATE")
        .mapTo(Integer.class)
        .findOne()
        .orElseThrow(() -> new IllegalStateException("Cannot lock holds: lethe_location_lock has no row 1"));
  }

  static String key(Kind kind, String namespace, String name) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(
          (kind.name() + '\0' + namespace + '\0' + name).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
