package dev.lethe.store.core;

/**
 * The record format versions this build reads, and the one it writes (docs/store-format.md
 * "Compatibility", docs/design/0108-records-that-prove-their-content.md). A record's format
 * version also says which rule its revision hash follows, so a record keeps its version for life:
 * a replication write copies it verbatim, and only a new version written by this build (a put, a
 * delete, a merge) is stamped {@link #CURRENT}.
 */
public final class FormatVersion {

  /** Version 1: a live record's revision hash is the SHA-256 of its content alone. Read, never stamped. */
  public static final int V1 = 1;
  /** Version 2: a live record's revision hash covers its kind, length and content hash. */
  public static final int V2 = 2;
  /** The version this build stamps on every record it writes itself. */
  public static final int CURRENT = V2;

  private FormatVersion() {}

  /** Returns whether this build reads records of {@code version}. */
  public static boolean isSupported(long version) {
    return version == V1 || version == V2;
  }
}
