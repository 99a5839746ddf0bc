package dev.lethe.catalog.jobs;

/**
 * One row of {@code lethe_cleanup_job} (docs/design/0200-catalog-architecture.md "Cleanup jobs"; docs/design/0201-cleanup-jobs.md §4).
 *
 * @param jobId database-assigned id
 * @param objectType table or view
 * @param metalakeName metalake of the dropped object
 * @param catalogId id of the catalog the object was dropped from (the catalog may be gone since)
 * @param catalogName name of that catalog at drop time
 * @param namespace namespace levels joined by U+001F ({@code NamespaceNames.encode})
 * @param objectName table or view name
 * @param metadataLocation the metadata file the worker rebuilds the file set from
 * @param fileIoImpl FileIO class name at drop time
 * @param encryptedFileIoProperties FileIO properties at drop time, AES-GCM encrypted ({@link
 *     CredentialCipher}); never shown to anyone
 * @param state current state
 * @param attempts failed attempts so far
 * @param lastError reason of the latest failure, null until one happens
 * @param heartbeatAt last heartbeat, ms since epoch on the database clock; null when unclaimed
 * @param createdBy principal that requested the drop
 * @param createdAt ms since epoch (database clock)
 * @param updatedAt last state change, ms since epoch (database clock)
 * @param keptFiles files the purge found in the table's metadata and kept because they lie outside
 *     the table's location (or do not parse), counted over the phases run so far; 0 for views
 * @param purgedThrough the last phase a run of this job finished, or null before the first; a retry
 *     resumes after it (docs/design/0003-purge-sweep-and-kept-files.md §3)
 * @param nextAttemptAt for a {@code PENDING} job waiting after a failed attempt, the earliest time
 *     (ms since epoch, database clock) a worker may claim it; null when claimable at once
 * @param endedBy the principal whose abandon or rescue ended the job, null if no operator ended it
 *     (docs/design/0443-abandon-and-rescue.md)
 * @param endedAt when an operator ended it, ms since epoch (database clock); null if none did
 * @param endReason the operator's reason, at most {@link #MAX_END_REASON} characters; null if none
 *     was given
 */
public record CleanupJob(
    long jobId,
    CleanupObjectType objectType,
    String metalakeName,
    String catalogId,
    String catalogName,
    String namespace,
    String objectName,
    String metadataLocation,
    String fileIoImpl,
    String encryptedFileIoProperties,
    CleanupJobState state,
    int attempts,
    String lastError,
    Long heartbeatAt,
    String createdBy,
    long createdAt,
    long updatedAt,
    long keptFiles,
    PurgePhase purgedThrough,
    Long nextAttemptAt,
    JobActivity activity,
    String endedBy,
    Long endedAt,
    String endReason) {

  /** Longest reason an operator may give, in characters (column {@code end_reason}). */
  public static final int MAX_END_REASON = 1024;

  /** A job without recorded activity that no operator ended. */
  public CleanupJob(long jobId, CleanupObjectType objectType, String metalakeName, String catalogId, String catalogName,
      String namespace, String objectName, String metadataLocation, String fileIoImpl,
      String encryptedFileIoProperties, CleanupJobState state, int attempts, String lastError, Long heartbeatAt,
      String createdBy, long createdAt, long updatedAt, long keptFiles, PurgePhase purgedThrough, Long nextAttemptAt) {
    this(jobId, objectType, metalakeName, catalogId, catalogName, namespace, objectName, metadataLocation, fileIoImpl,
        encryptedFileIoProperties, state, attempts, lastError, heartbeatAt, createdBy, createdAt, updatedAt, keptFiles,
        purgedThrough, nextAttemptAt, JobActivity.NONE, null, null, null);
  }

  /** A job that has not run yet: nothing kept, no phase finished, claimable at once. */
  public CleanupJob(long jobId, CleanupObjectType objectType, String metalakeName, String catalogId, String catalogName,
      String namespace, String objectName, String metadataLocation, String fileIoImpl,
      String encryptedFileIoProperties, CleanupJobState state, int attempts, String lastError, Long heartbeatAt,
      String createdBy, long createdAt, long updatedAt) {
    this(jobId, objectType, metalakeName, catalogId, catalogName, namespace, objectName, metadataLocation, fileIoImpl,
        encryptedFileIoProperties, state, attempts, lastError, heartbeatAt, createdBy, createdAt, updatedAt, 0, null,
        null);
  }

  /** Never prints the FileIO properties. */
  @Override
  public String toString() {
    return "CleanupJob[id=" + jobId + ", " + objectType + " " + catalogName + "."
        + namespace.replace('\u001f', '.') + "." + objectName + ", state=" + state + ", attempts=" + attempts + "]";
  }
}
