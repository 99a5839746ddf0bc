package dev.lethe.catalog.jobs;

/**
 * An operator's action on a cleanup job in a state that does not allow it (docs/design/0440-job-control.md):
 * a 409 whose message and {@link #state()} name the state the job is in now. Nothing was changed.
 */
public final class CleanupJobStateException extends RuntimeException {
  private final transient CleanupJob job;

  /**
   * @param action the action refused, as the route spells it ({@code retry}, {@code run-now})
   * @param job the job as it is now
   * @param allowed what the action needs, for the message (e.g. {@code "only a FAILED job can be retried"})
   */
  public CleanupJobStateException(String action, CleanupJob job, String allowed) {
    super(String.format("Cannot %s cleanup job %d: it is %s; %s", action, job.jobId(), job.state(), allowed));
    this.job = job;
  }

  /** The state the job is in now, never null. */
  public CleanupJobState state() {
    return job.state();
  }

  /** The job as it is now, never null. */
  public CleanupJob job() {
    return job;
  }
}
