package dev.lethe.catalog.jobs;

/**
 * States of a cleanup job (docs/design/0200-catalog-architecture.md "Cleanup jobs"; docs/design/0201-cleanup-jobs.md §4, §6).
 *
 * <p>{@code PENDING → RUNNING → SUCCEEDED | FAILED}; a transient failure sends a {@code RUNNING}
 * job back to {@code PENDING}. {@code CANCELLED} is reserved and never written.
 */
public enum CleanupJobState {
  /** Waiting for a worker; blocks reuse of the name. */
  PENDING,
  /** Claimed by a worker whose heartbeat keeps it; blocks reuse of the name. */
  RUNNING,
  /** Every file is gone. Terminal. */
  SUCCEEDED,
  /** Retries exhausted or a terminal failure; {@code last_error} says why. Terminal. */
  FAILED,
  /** Reserved for a future cancel operation; never written today. Terminal. */
  CANCELLED;

  /** True for {@link #PENDING} and {@link #RUNNING}: the job still owns its object's name. */
  public boolean active() {
    return this == PENDING || this == RUNNING;
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
        "Invalid state: " + name + " (expected PENDING, RUNNING, SUCCEEDED, FAILED or CANCELLED)");
  }
}
