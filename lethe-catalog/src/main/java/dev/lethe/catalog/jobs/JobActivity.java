package dev.lethe.catalog.jobs;

/**
 * What a cleanup job row says of its run beyond its state (docs/design/0445-job-progress-and-receipts.md).
 *
 * @param purgePath how the purge was asked for; null for jobs enqueued before it was recorded
 * @param phase the phase running now ({@link PurgePhase} name, or {@code VIEW_METADATA_FILES} for a
 *     view), null before the first claim and after the job ended
 * @param filesDeleted files deleted so far, over every run
 * @param bytesDeleted bytes of those files as far as known (bytes)
 * @param bytesUnknown of those files, how many had no known size: when above 0, {@code bytesDeleted}
 *     is a lower bound
 * @param progress the {@link JobProgress} JSON as last written, null before the first write
 * @param checkpoint the {@link JobProgress} JSON as of {@code purgedThrough}, null before a phase finished
 * @param ownerHost host name of the replica holding the lease, null when no lease is held
 * @param ownerPid process id of that replica, null when no lease is held
 * @param firstClaimedAt ms since epoch (database clock) of the first claim, null before it
 */
public record JobActivity(PurgePath purgePath, String phase, long filesDeleted, long bytesDeleted, long bytesUnknown,
    String progress, String checkpoint, String ownerHost, Long ownerPid, Long firstClaimedAt) {
  /** Nothing recorded. */
  public static final JobActivity NONE = new JobActivity(null, null, 0, 0, 0, null, null, null, null, null);
}
