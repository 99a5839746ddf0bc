package dev.lethe.catalog.jobs;

/**
 * Why a purge kept a file its metadata named (docs/design/0445-job-progress-and-receipts.md;
 * the rules are docs/design/0003-purge-sweep-and-kept-files.md).
 */
public enum KeptReason {
  /** Outside every root the table owned. */
  OUTSIDE_ROOTS,
  /** Inside a location another table, view or job claims: shared with another live entry. */
  SHARED_WITH_ANOTHER_ENTRY,
  /** A manifest that could not be read (the files it names cannot be found, so it is kept). */
  UNREADABLE_MANIFEST,
  /** A path that does not parse as a location, or reached through a symbolic link. */
  OTHER;

  /**
   * The reason of a kept path from the purge scope's one-line reason ({@code PurgeScope.Keep}).
   *
   * @param reason the scope's text, may be null
   */
  public static KeptReason ofScopeReason(String reason) {
    if (reason == null) {
      return OTHER;
    }
    if (reason.startsWith("outside ")) {
      return OUTSIDE_ROOTS;
    }
    if (reason.startsWith("inside ")) {
      return SHARED_WITH_ANOTHER_ENTRY;
    }
    return OTHER;
  }
}
