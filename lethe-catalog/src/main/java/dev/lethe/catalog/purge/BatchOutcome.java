package dev.lethe.catalog.purge;

/**
 * What a {@link FileBatchDeleter#delete} call achieved.
 *
 * @param deleted files gone after the call, counting files that did not exist
 * @param failed files the FileIO reported it could not delete
 */
public record BatchOutcome(int deleted, int failed) {
  /** Creates an outcome; both counts must be non-negative. */
  public BatchOutcome {
    if (deleted < 0 || failed < 0) {
      throw new IllegalArgumentException(
          "Cannot create batch outcome: negative count deleted=" + deleted + " failed=" + failed);
    }
  }
}
