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
 * SQL of table {@code lethe_protection} and the one check every entry removal runs in its own
 * transaction (docs/design/0441-drop-protection.md): {@link EntryDao#delete}, {@link
 * EntryDao#rename}, {@link TableDao#setDeletionId} and {@link NamespaceDao#delete} call {@link
 * #check} after they change their row, and the check and every change of protections run under one
 * lock, so a protect and a drop are ordered by their commits (0441 "Race with a concurrent protect").
 */
public final class ProtectionDao {
  /** What a protection covers. */
  public enum Kind { TABLE, VIEW, NAMESPACE }

  /**
   * One protection.
   *
   * @param kind what it covers
   * @param namespace the namespace levels joined by U+001F (for {@link Kind#NAMESPACE} the
   *     protected namespace itself)
   * @param name the entry's name; {@code ""} for {@link Kind#NAMESPACE}
   * @param setBy the principal who set it
   * @param setAt when, ms since epoch
   * @param reason why, as given (may be empty)
   */
  public record Protection(Kind kind, String namespace, String name, String setBy, long setAt, String reason) {
    /** "table a.b (set by alice: reason)" for messages. */
    public String describe() {
      String ns = namespace.replace(NamespaceNames.SEPARATOR, ".");
      String what = kind == Kind.NAMESPACE ? "namespace " + ns : kind.name().toLowerCase() + " " + ns + "." + name;
      return "protection on " + what + " set by " + setBy + (reason.isEmpty() ? "" : " (" + reason + ")");
    }
  }

  private static final RowMapper<Protection> ROWS = (rs, ctx) -> new Protection(Kind.valueOf(rs.getString("kind")),
      rs.getString("namespace"), rs.getString("name"), rs.getString("set_by"), rs.getLong("set_at"),
      rs.getString("reason"));

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public ProtectionDao(Handle handle) {
    this.handle = handle;
  }

  /** The catalog's protections, by kind, namespace and name. */
  public List<Protection> list(String catalogId) {
    return handle
        .createQuery("SELECT kind, namespace, name, set_by, set_at, reason FROM lethe_protection "
            + "WHERE catalog_id = :c ORDER BY kind, namespace, name")
        .bind("c", catalogId)
        .map(ROWS)
        .list();
  }

  /** How many protections the catalog has (what {@link #list} lists); one count. */
  public long count(String catalogId) {
    return handle.createQuery("SELECT COUNT(*) FROM lethe_protection WHERE catalog_id = :c")
        .bind("c", catalogId)
        .mapTo(Long.class)
        .one();
  }

  /**
   * Sets the protection, replacing one on the same object (its setter, time and reason).
   *
   * @return the protection as stored
   */
  public Protection put(String catalogId, Protection p) {
    lock();
    // an existing row is updated in place, so a transaction that lost an insert race and runs again
    // finds the winner's row instead of deleting it and racing once more (Protections.protect)
    int updated = handle
        .createUpdate("UPDATE lethe_protection SET set_by = :by, set_at = :at, reason = :reason "
            + "WHERE catalog_id = :c AND protection_key = :k")
        .bind("k", key(p.kind(), p.namespace(), p.name()))
        .bind("c", catalogId)
        .bind("by", p.setBy())
        .bind("at", p.setAt())
        .bind("reason", p.reason())
        .execute();
    if (updated > 0) {
      return p;
    }
    handle
        .createUpdate("INSERT INTO lethe_protection (protection_key, catalog_id, kind, namespace, name, set_by, set_at, "
            + "reason) VALUES (:k, :c, :kind, :ns, :name, :by, :at, :reason)")
        .bind("k", key(p.kind(), p.namespace(), p.name()))
        .bind("c", catalogId)
        .bind("kind", p.kind().name())
        .bind("ns", p.namespace())
        .bind("name", p.name())
        .bind("by", p.setBy())
        .bind("at", p.setAt())
        .bind("reason", p.reason())
        .execute();
    return p;
  }

  /**
   * Clears the protection on that object.
   *
   * @return the protection as it was stored; empty when there was none (nothing changed)
   */
  public Optional<Protection> clear(String catalogId, Kind kind, String namespace, String name) {
    lock();
    // read under the lock every change of protections takes, so the row read is the row deleted
    Optional<Protection> stored = handle
        .createQuery("SELECT kind, namespace, name, set_by, set_at, reason FROM lethe_protection "
            + "WHERE catalog_id = :c AND protection_key = :k")
        .bind("c", catalogId)
        .bind("k", key(kind, namespace, name))
        .map(ROWS)
        .findOne();
    if (stored.isEmpty()) {
      return stored;
    }
    int deleted = handle
        .createUpdate("DELETE FROM lethe_protection WHERE catalog_id = :c AND protection_key = :k")
        .bind("c", catalogId)
        .bind("k", key(kind, namespace, name))
        .execute();
    return deleted == 1 ? stored : Optional.empty();
  }

  /**
   * The protection that covers an entry or namespace, if any: its own, or one on its namespace or
   * any ancestor of it; for a namespace also one on any entry or namespace inside it.
   *
   * @param kind the entry's kind; {@link Kind#NAMESPACE} for a namespace drop
   * @param namespace the stored namespace name (levels joined by U+001F)
   * @param name the entry's name; ignored for {@link Kind#NAMESPACE}
   */
  public Optional<Protection> covering(String catalogId, Kind kind, String namespace, String name) {
    String sep = NamespaceNames.SEPARATOR;
    for (Protection p : list(catalogId)) {
      boolean nsAtOrAbove = p.kind() == Kind.NAMESPACE
          && (namespace.equals(p.namespace()) || namespace.startsWith(p.namespace() + sep));
      boolean covers = kind == Kind.NAMESPACE
          ? nsAtOrAbove || p.namespace().equals(namespace) || p.namespace().startsWith(namespace + sep)
          : nsAtOrAbove || (p.kind() == kind && p.namespace().equals(namespace) && p.name().equals(name));
      if (covers) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses the change if a protection covers the entry of that name in the namespace with id
   * {@code namespaceId} (or, for {@link Kind#NAMESPACE}, that namespace). Call it after the change's
   * own row write, so the row lock comes before the protection lock, as for location claims.
   *
   * @throws ProtectedException if one does; the caller's transaction should roll back
   */
  public void check(Kind kind, String namespaceId, String name) {
    new NamespaceDao(handle).findById(namespaceId).ifPresent(ns -> check(kind, ns, name));
  }

  /**
   * {@link #check(Kind, String, String)} for a namespace row read before the change (a namespace's
   * own drop deletes the row the id would find).
   *
   * @throws ProtectedException if a protection covers it; the caller's transaction should roll back
   */
  public void check(Kind kind, NamespaceRow ns, String name) {
    lock();
    Optional<Protection> p = covering(ns.catalogId(), kind, ns.name(), name);
    if (p.isPresent()) {
      String nsName = ns.name().replace(NamespaceNames.SEPARATOR, ".");
      throw new ProtectedException(kind == Kind.NAMESPACE ? "Namespace " + nsName
          : (kind == Kind.TABLE ? "Table " : "View ") + nsName + "." + name, p.get());
    }
  }

  /**
   * Takes the catalog database's claims lock ({@code lethe_location_lock} row 1) until the
   * transaction ends: a protect and a drop's check then run one after the other, and the check reads
   * every protection committed before it (docs/design/0441-drop-protection.md).
   */
  private void lock() {
    handle.createQuery("SELECT lock_id FROM lethe_location_lock WHERE lock_id = 1 FOR UPDATE")
        .mapTo(Integer.class)
        .findOne()
        .orElseThrow(() -> new IllegalStateException("Cannot lock protections: lethe_location_lock has no row 1"));
  }

  private static String key(Kind kind, String namespace, String name) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(
          (kind.name() + '\0' + namespace + '\0' + name).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
