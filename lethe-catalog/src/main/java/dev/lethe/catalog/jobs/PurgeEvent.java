package dev.lethe.catalog.jobs;

/**
 * Events of the asynchronous purge (docs/design/0201-cleanup-jobs.md §9 and its phase 2), delivered to every {@link
 * PurgeEventListener}. Jobs in events never expose FileIO properties ({@link CleanupJob#toString}).
 */
public sealed interface PurgeEvent {
  /** The job concerned. */
  CleanupJob job();

  /** A drop with async purge was accepted on the request thread; the job is {@code PENDING}. */
  record DropAccepted(CleanupJob job) implements PurgeEvent {}

  /** A worker claimed the job and starts deleting. */
  record PurgeStarted(CleanupJob job) implements PurgeEvent {}

  /** The job ended {@code SUCCEEDED}. */
  record PurgeCompleted(CleanupJob job, long filesDeleted) implements PurgeEvent {}

  /** The job ended {@code FAILED} (terminal failure or retries exhausted). */
  record PurgeFailed(CleanupJob job, String reason) implements PurgeEvent {}
}
