package dev.lethe.catalog.jobs;

/**
 * What a cleanup job did, written once per terminal transition and kept after the job row is pruned
 * (docs/design/0445-job-progress-and-receipts.md).
 *
 * @param receiptId database-assigned id
 * @param jobId the job's id (its row may be gone)
 * @param objectType table or view
 * @param metalakeName metalake of the dropped object
 * @param catalogId id of its catalog
 * @param catalogName name of that catalog at drop time
 * @param namespace levels joined by U+001F
 * @param objectName table or view name
 * @param metadataLocation the metadata file the job purged from (for the path rule of readers)
 * @param state the terminal state the job ended in
 * @param purgePath how the purge was asked for, null for jobs enqueued before it was recorded
 * @param createdBy principal that asked for the drop
 * @param createdAt ms since epoch (database clock) the job was enqueued
 * @param firstClaimedAt ms since epoch of its first claim, null if it never ran
 * @param endedAt ms since epoch of the terminal transition
 * @param attempts failed attempts counted on the job
 * @param keptFiles files its metadata named that the purge kept
 * @param lastError why it failed, null when it succeeded
 * @param tally files and bytes deleted per kind, kept per reason and left over, with samples
 * @param endedBy the principal whose abandon or rescue ended the job, null if no operator ended it
 * @param endReason the operator's reason, null if none was given or no operator ended it
 */
public record CleanupReceipt(long receiptId, long jobId, CleanupObjectType objectType, String metalakeName,
    String catalogId, String catalogName, String namespace, String objectName, String metadataLocation,
    CleanupJobState state, PurgePath purgePath, String createdBy, long createdAt, Long firstClaimedAt, long endedAt,
    int attempts, long keptFiles, String lastError, JobProgress tally, String endedBy, String endReason) {

  /** ms from enqueue to end. */
  public long durationMs() {
    return endedAt - createdAt;
  }

  /** One line for events and logs: state, files, bytes ("at least" when a lower bound), kept (every reason), left over. */
  public String summary() {
    return "receipt " + receiptId + ": job " + jobId + " " + state + ", " + tally.files() + " files, "
        + (tally.unknownSizes() > 0 ? "at least " : "") + tally.bytes() + " bytes deleted, "
        + tally.kept().values().stream().mapToLong(JobProgress.Sample::count).sum() + " kept, "
        + tally.leftovers().count() + " left over" + (endedBy == null ? "" : ", ended by " + endedBy
        + (endReason == null ? "" : " (" + endReason + ")"));
  }
}
