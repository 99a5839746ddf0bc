package dev.lethe.store.fs;

/** Whether the fs store forces writes to disk. */
public enum Durability {
  /**
   * fsync the temp file before the rename and the directory after it (the default): an
   * acknowledged write survives a power loss.
   */
  FSYNC,
  /**
   * Skip both fsyncs. Writes stay atomic (temp file + rename), so a process crash never tears a
   * record, but a machine crash may lose recent writes. For scratch stores and benchmark setup.
   */
  NO_FSYNC
}
