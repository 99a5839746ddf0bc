package dev.lethe.store.core.sync;

import dev.lethe.store.core.progress.Progress;

/**
 * How sync runs.
 *
 * @param maxAttempts how often one key is re-read and re-planned after a write lost a race
 *     ({@code Conflict} or {@code NotFound}) before it is reported as a conflict; at least 1
 * @param progress receives progress, never null
 */
public record SyncOptions(int maxAttempts, Progress progress) {

  /** 8 attempts, no progress. */
  public static final SyncOptions DEFAULTS = new SyncOptions(8, Progress.NONE);

  public SyncOptions {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Invalid sync options: maxAttempts must be at least 1");
    }
    progress = progress == null ? Progress.NONE : progress;
  }
}
