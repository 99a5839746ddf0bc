package dev.lethe.catalog.softdelete;

import java.util.Objects;

/**
 * One row of {@code lethe_entity_deletion}: one retained drop of one table (docs/design/0202-soft-deletion.md
 * §3).
 *
 * @param deletionId opaque id of this drop (UUID string): identifies the generation, not the name
 * @param entityType {@code TABLE} (the only type in phase 1)
 * @param entityId {@code table_id} of the retained table row
 * @param state {@code DELETED} or {@code PURGING}
 * @param deletedAt ms since epoch (database clock) of the drop
 * @param retentionExpiresAt ms since epoch: restore is refused from this instant on (exclusive for
 *     restore, inclusive for purge); computed once at drop time
 * @param deletedBy principal of the drop ({@code anonymous} when auth is off)
 * @param purgeRequested whether the purge at expiry deletes the files ({@code false}: only the
 *     metadata is removed)
 * @param purgeJobId the cleanup job that purges the files; null while recoverable
 */
public record DeletionRecord(
    String deletionId,
    String entityType,
    String entityId,
    DeletionState state,
    long deletedAt,
    long retentionExpiresAt,
    String deletedBy,
    boolean purgeRequested,
    Long purgeJobId) {

  /** The only entity type of phase 1. */
  public static final String TABLE = "TABLE";

  /** Rejects nulls (except {@code purgeJobId}). */
  public DeletionRecord {
    Objects.requireNonNull(deletionId, "deletionId");
    Objects.requireNonNull(entityType, "entityType");
    Objects.requireNonNull(entityId, "entityId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(deletedBy, "deletedBy");
  }
}
