/**
 * The durable cleanup-job queue: job rows ({@link dev.lethe.catalog.jobs.CleanupJob}, {@link
 * dev.lethe.catalog.jobs.CleanupJobDao}), their times from the database clock ({@link
 * dev.lethe.catalog.jobs.DatabaseClock}), claims ({@link dev.lethe.catalog.jobs.JobClaimer}: SKIP
 * LOCKED or compare-and-set), leases and their heartbeat, the durable retry backoff, the pure state
 * transitions ({@link dev.lethe.catalog.jobs.PurgeTransition}) and the enqueuer that inserts a job
 * inside the caller's transaction. It knows nothing of Iceberg files
 * (docs/design/0210-catalog-drop-and-jobs-layout.md).
 */
package dev.lethe.catalog.jobs;
