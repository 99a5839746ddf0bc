package dev.lethe.catalog.location;

import java.util.Objects;

/**
 * Who holds a location claim (docs/design/0001-purge-confinement-and-ownership.md §3): a table (live
 * or retained by a soft deletion), a view, or a {@code PENDING}/{@code RUNNING}/{@code FAILED}
 * cleanup job that purges a dropped table or view.
 *
 * @param kind the kind of entry, not null
 * @param id the {@code table_id}, {@code view_id} (UUID strings) or the cleanup job id in decimal;
 *     at most 36 characters, not null
 */
public record ClaimOwner(Kind kind, String id) {
  /** The kinds of claim holders; their names are stored in {@code lethe_location_claim.owner_kind}. */
  public enum Kind {
    TABLE,
    VIEW,
    JOB
  }

  public ClaimOwner {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    if (id.isEmpty() || id.length() > 36) {
      throw new IllegalArgumentException("Invalid claim owner id: '" + id + "' (1-36 characters)");
    }
  }

  /** The claims of a table row ({@code lethe_table.table_id}). */
  public static ClaimOwner table(String tableId) {
    return new ClaimOwner(Kind.TABLE, tableId);
  }

  /** The claim of a view row ({@code lethe_view.view_id}). */
  public static ClaimOwner view(String viewId) {
    return new ClaimOwner(Kind.VIEW, viewId);
  }

  /** The claims of a cleanup job ({@code lethe_cleanup_job.job_id}). */
  public static ClaimOwner job(long jobId) {
    return new ClaimOwner(Kind.JOB, Long.toString(jobId));
  }

  /** The job id of a {@link Kind#JOB} owner. */
  public long jobId() {
    if (kind != Kind.JOB) {
      throw new IllegalStateException("Not a job owner: " + this);
    }
    return Long.parseLong(id);
  }

  @Override
  public String toString() {
    return kind + " " + id;
  }
}
