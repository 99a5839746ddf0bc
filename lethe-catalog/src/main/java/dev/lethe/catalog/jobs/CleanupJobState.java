package dev.lethe.catalog.jobs;

/**
 * States of a cleanup job (docs/design/0200-catalog-architecture.md "Cleanup jobs"; docs/design/0201-cleanup-jobs.md §4, §6).
 *
 * <p>{@code PENDING → RUNNING → SUCCEEDED | FAILED}; a transient failure sends a {@code RUNNING}
 * job back to {@code PENDING}. An operator ends a job by hand (docs/design/0443-abandon-and-rescue.md):
 * {@code FAILED → ABANDONED} (abandon: the files were removed by hand) and {@code PENDING | FAILED →
 * CANCELLED} (rescue: the table was put back).
 */
public enum CleanupJobState {
  /** Waiting for a worker; blocks reuse of the name. */
  PENDING,
  /** Claimed by a worker whose heartbeat keeps it; blocks reuse of the name. */
  RUNNING,
  /** Every file is gone. Terminal. */
  SUCCEEDED,
  /**
   * Retries exhausted or a terminal failure; {@code last_error} says why. No worker runs it again, but
   * an operator's retry can, so it keeps its location claims until it is retried, abandoned or
   * rescued (docs/design/0446-a-failed-job-keeps-its-locations.md).
   */
  FAILED,
  /** Cancelled by an operator's rescue: the table is back at its name, its files kept. Terminal. */
  CANCELLED,
  /**
   * Given up by an operator's abandon after a {@code FAILED} run: the operator removed the leftovers
   * by hand; the name is free. Terminal.
   */
  ABANDONED;

  /** True for {@link #PENDING} and {@link #RUNNING}: the job still owns its object's name. */
  public boolean active() {
    return this == PENDING || this == RUNNING;
  }

  /**
   * True for {@link #PENDING}, {@link #RUNNING} and {@link #FAILED}: the job may still delete files
   * (a FAILED one after a retry), so it holds its location claims
   * (docs/design/0446-a-failed-job-keeps-its-locations.md).
   */
  public boolean holdsLocations() {
    return active() || this == FAILED;
  }

  /**
   * Parses a state name, case-insensitively.
   *
   * @throws IllegalArgumentException naming the accepted values if {@code name} is not one
   */
  public static CleanupJobState parse(String name) {
    for (CleanupJobState s : values()) {
      if (s.name().equalsIgnoreCase(name == null ? "" : name.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "Invalid state: " + name + " (expected PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED or ABANDONED)");
  }
}
