package dev.lethe.catalog.jobs;

/**
 * Events of the asynchronous purge (docs/design/0201-cleanup-jobs.md §9 and its phase 2), delivered to every {@link
 * PurgeEventListener}. Jobs in events never expose FileIO properties ({@link CleanupJob#toString}). What an
 * operator does (retry, run-now, abandon, rescue, holds, protections) is an {@link OperatorEvent}, a sibling:
 * a hold or a protection has no job (docs/design/0447-operator-events.md).
 */
public sealed interface PurgeEvent {
  /** The job concerned. */
  CleanupJob job();

  /** A drop with async purge was accepted on the request thread; the job is {@code PENDING}. */
  record DropAccepted(CleanupJob job) implements PurgeEvent {}

  /** A worker claimed the job and starts deleting. */
  record PurgeStarted(CleanupJob job) implements PurgeEvent {}

  /**
   * The job ended {@code SUCCEEDED}.
   *
   * @param filesDeleted files the last run deleted
   * @param receipt the receipt written with the end (docs/design/0445-job-progress-and-receipts.md);
   *     null only from the compatibility constructor
   */
  record PurgeCompleted(CleanupJob job, long filesDeleted, CleanupReceipt receipt) implements PurgeEvent {
    /** An event without a receipt. */
    public PurgeCompleted(CleanupJob job, long filesDeleted) {
      this(job, filesDeleted, null);
    }
  }

  /**
   * The job ended {@code FAILED} (terminal failure or retries exhausted).
   *
   * @param reason the stored last error
   * @param receipt the receipt written with the end; null only from the compatibility constructor
   */
  record PurgeFailed(CleanupJob job, String reason, CleanupReceipt receipt) implements PurgeEvent {
    /** An event without a receipt. */
    public PurgeFailed(CleanupJob job, String reason) {
      this(job, reason, null);
    }
  }
}
