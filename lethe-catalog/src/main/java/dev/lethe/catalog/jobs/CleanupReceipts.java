package dev.lethe.catalog.jobs;

import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The receipts of ended cleanup jobs, table {@code lethe_cleanup_receipt}: the one writer, called
 * at every terminal transition inside its transaction, and the reader of the receipt route
 * (docs/design/0445-job-progress-and-receipts.md). Receipts are not pruned with the job rows.
 */
public final class CleanupReceipts {
  private CleanupReceipts() {}

  /**
   * Writes the receipt of a job that has just ended: call it in the transaction that wrote the
   * terminal state, after that write, so both commit or neither does. Whatever the terminal state
   * (SUCCEEDED, FAILED, or one an operator's action writes), the receipt is the row as it now is.
   *
   * @param h the handle of that transaction
   * @param jobId the job that ended
   * @param now ms since epoch (database clock) of the transition
   * @return the new receipt
   * @throws IllegalStateException if the job does not exist or is still active (a caller bug)
   */
  public static CleanupReceipt write(Handle h, long jobId, long now) {
    CleanupJob job = new CleanupJobDao(h).find(jobId)
        .orElseThrow(() -> new IllegalStateException("Cannot write the receipt of cleanup job " + jobId + ": no such job"));
    if (job.state().active()) {
      throw new IllegalStateException("Cannot write the receipt of cleanup job " + jobId + ": it is " + job.state());
    }
    JobActivity a = job.activity();
    JobProgress tally = JobProgress.fromJson(a.progress());
    long id = h.createUpdate("INSERT INTO lethe_cleanup_receipt (job_id, object_type, metalake_name, catalog_id, "
            + "catalog_name, namespace, object_name, metadata_location, state, purge_path, created_by, created_at, "
            + "first_claimed_at, ended_at, attempts, files_deleted, bytes_deleted, bytes_unknown, kept_files, last_error, "
            + "detail, ended_by, end_reason) VALUES (:jobId, :type, :metalake, :catalogId, :catalogName, :ns, :name, :metadata, :state, :path, "
            + ":createdBy, :createdAt, :firstClaimedAt, :now, :attempts, :files, :bytes, :unknown, :kept, :lastError, "
            + ":detail, :endedBy, :endReason)")
        .bind("jobId", jobId)
        .bind("type", job.objectType().name())
        .bind("metalake", job.metalakeName())
        .bind("catalogId", job.catalogId())
        .bind("catalogName", job.catalogName())
        .bind("ns", job.namespace())
        .bind("name", job.objectName())
        .bind("metadata", job.metadataLocation())
        .bind("state", job.state().name())
        .bind("path", a.purgePath() == null ? null : a.purgePath().name())
        .bind("createdBy", job.createdBy())
        .bind("createdAt", job.createdAt())
        .bind("firstClaimedAt", a.firstClaimedAt())
        .bind("now", now)
        .bind("attempts", job.attempts())
        .bind("files", tally.files())
        .bind("bytes", tally.bytes())
        .bind("unknown", tally.unknownSizes())
        .bind("kept", job.keptFiles())
        .bind("lastError", job.lastError())
        .bind("detail", tally.toJson())
        // who ended it and why, when an operator's abandon or rescue did (docs/design/0443-abandon-and-rescue.md)
        .bind("endedBy", job.endedBy())
        .bind("endReason", job.endReason())
        .executeAndReturnGeneratedKeys("receipt_id")
        .mapTo(Long.class)
        .one();
    return find(h, job.catalogId(), jobId).orElseThrow();
  }

  /**
   * The newest receipt of a job of the catalog (a job retried after it failed has one per end).
   *
   * @return empty if the job never ended, or is of another catalog
   */
  public static Optional<CleanupReceipt> find(Handle h, String catalogId, long jobId) {
    return h.createQuery("SELECT * FROM lethe_cleanup_receipt WHERE catalog_id = :c AND job_id = :id "
            + "ORDER BY receipt_id DESC")
        .bind("c", catalogId)
        .bind("id", jobId)
        .map(ROWS)
        .findFirst();
  }

  private static final RowMapper<CleanupReceipt> ROWS = (rs, ctx) -> {
    long fc = rs.getLong("first_claimed_at");
    Long firstClaimed = rs.wasNull() ? null : fc;
    String path = rs.getString("purge_path");
    return new CleanupReceipt(rs.getLong("receipt_id"), rs.getLong("job_id"),
        CleanupObjectType.valueOf(rs.getString("object_type")), rs.getString("metalake_name"),
        rs.getString("catalog_id"), rs.getString("catalog_name"), rs.getString("namespace"),
        rs.getString("object_name"), rs.getString("metadata_location"), CleanupJobState.valueOf(rs.getString("state")),
        path == null ? null : PurgePath.valueOf(path), rs.getString("created_by"), rs.getLong("created_at"),
        firstClaimed, rs.getLong("ended_at"), rs.getInt("attempts"), rs.getLong("kept_files"),
        rs.getString("last_error"), JobProgress.fromJson(rs.getString("detail")), rs.getString("ended_by"),
        rs.getString("end_reason"));
  };
}
