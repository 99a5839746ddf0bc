package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.jobs.CleanupJobState;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.jdbi.v3.core.Handle;

/**
 * The reserved-name rule of the soft deletion (docs/design/0202-soft-deletion.md §3, §5 "Name held during the
 * window"): while a retained table row holds a name, creating, registering or renaming a table or
 * view into it is refused with {@link AlreadyExistsException} (HTTP 409) whose message names the
 * retained deletion and its deadline; a namespace holding retained tables does not drop. Applies
 * whatever {@code lethe.entity.soft-delete.enabled} says (the flag gates new drops only).
 */
public final class RetainedNameGuard {
  /** Most retained tables named by a namespace-drop refusal. */
  private static final int MAX_NAMED = 10;

  private RetainedNameGuard() {}

  /**
   * @param h handle (inside the creating transaction, so the check and the insert are atomic)
   * @param namespaceId namespace of the identifier
   * @param id the identifier, for the message
   * @throws AlreadyExistsException if a retained table holds the name
   */
  public static void checkName(Handle h, String namespaceId, TableIdentifier id) {
    new DeletionDao(h).findRetained(namespaceId, id.name()).ifPresent(r -> {
      throw new AlreadyExistsException("Cannot use name %s: it is held by a dropped table that is retained (entity id %s); %s",
          id, r.record().entityId(), describe(r));
    });
  }

  /**
   * @param h handle (inside the namespace-drop transaction)
   * @throws NamespaceNotEmptyException naming the retained tables (and their entity ids, as listings show them) if any
   */
  public static void checkNamespaceDrop(Handle h, String namespaceId, Namespace namespace) {
    List<RetainedDeletion> kept = new DeletionDao(h).listRetained(namespaceId);
    if (kept.isEmpty()) {
      return;
    }
    String named = kept.stream().limit(MAX_NAMED)
        .map(r -> r.tableName() + " (entity id " + r.record().entityId() + ", " + r.record().state() + ")")
        .collect(Collectors.joining(", "));
    String more = kept.size() > MAX_NAMED ? " and " + (kept.size() - MAX_NAMED) + " more" : "";
    throw new NamespaceNotEmptyException("Namespace %s is not empty: it holds %d retained deletion(s) of dropped tables: %s%s; "
        + "restore them (undrop) or let them be purged first", namespace, kept.size(), named, more);
  }

  private static String describe(RetainedDeletion retained) {
    DeletionRecord r = retained.record();
    if (r.state() == DeletionState.PURGING) {
      // a FAILED job is never re-driven (docs/design/0202-soft-deletion.md §6): waiting would not free the name
      if (retained.purgeJobState() == CleanupJobState.FAILED) {
        return "its purge failed (cleanup job " + r.purgeJobId() + " FAILED); the name stays reserved until an operator "
            + "retries the job (lethe catalog jobs retry " + r.purgeJobId() + ") or abandons it (lethe catalog jobs abandon "
            + "--reason TEXT " + r.purgeJobId() + ")";
      }
      return "it is being purged (cleanup job " + r.purgeJobId() + ", " + retained.purgeJobState()
          + "); the name is free once the purge succeeds";
    }
    return "recoverable until " + Instant.ofEpochMilli(r.retentionExpiresAt()) + " (" + r.retentionExpiresAt()
        + " ms): restore it with undrop, or the name is free once it expires and is purged";
  }
}
