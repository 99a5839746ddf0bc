package dev.lethe.store.core.progress;

/**
 * Receives progress of a long run (reset, collect, sync) so a terminal can show a bar. Called
 * from the running thread.
 */
public interface Progress {

  /** Ignores progress. */
  Progress NONE = (done, total) -> {};

  /**
   * Reports that {@code done} of {@code total} keys are handled.
   *
   * @param done keys handled so far
   * @param total keys to handle, or 0 when unknown (a streaming sync does not count ahead)
   */
  void update(long done, long total);
}
