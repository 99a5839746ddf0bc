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
  /** Version 2: a live record's revision hash covers its kind, length and content hash. Read, never stamped. */
  public static final int V2 = 2;
  /**
   * Version 3: a live record's revision hash also covers author, origin, labels and links, and an
   * append-only record keeps the line sets of its ancestors (docs/design/0155-a-revision-covers-what-sync-compares.md,
   * docs/design/0156-three-way-line-merge.md).
   */
  public static final int V3 = 3;
  /** The version this build stamps on every record it writes itself. */
  public static final int CURRENT = V3;

  private FormatVersion() {}

  /** Returns whether this build reads records of {@code version}. */
  public static boolean isSupported(long version) {
    return version == V1 || version == V2 || version == V3;
  }
}
