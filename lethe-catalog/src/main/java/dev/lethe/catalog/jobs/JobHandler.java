package dev.lethe.catalog.jobs;

/**
 * The work of one claimed cleanup job, as the job executor runs it: the queue's only view of what a
 * job does (docs/design/0210-catalog-drop-and-jobs-layout.md). The executor renews the lease,
 * writes the outcome's transition and releases the claims; a handler only does the work.
 */
@FunctionalInterface
public interface JobHandler {
  /**
   * Runs the job while {@code lease} holds.
   *
   * @return how the attempt ended, never null; storage failures are outcomes, not exceptions
   */
  PurgeOutcome run(CleanupJob job, Lease lease);
}
