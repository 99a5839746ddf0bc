package dev.lethe.store.fs;

import dev.lethe.store.core.RecordKey;
import java.nio.file.Path;

/**
 * Observes the fs store's write protocol. Crash-safety tests use it to stop a process between
 * the durable temp write and the rename.
 */
@FunctionalInterface
public interface WriteObserver {

  /** Does nothing. */
  WriteObserver NONE = (key, temp) -> {};

  /**
   * Called after the temp file holding the new record is written and fsynced, and before it is
   * renamed over the record file.
   *
   * @param key the record's key
   * @param temp the temp file
   */
  void afterTempWrite(RecordKey key, Path temp);
}
