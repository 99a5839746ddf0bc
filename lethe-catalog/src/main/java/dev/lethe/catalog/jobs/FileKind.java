package dev.lethe.catalog.jobs;

/**
 * The kinds of files a purge counts separately in its progress and receipt
 * (docs/design/0445-job-progress-and-receipts.md).
 */
public enum FileKind {
  /** Data files named by data manifests. */
  DATA_FILES,
  /** Position and equality delete files (and deletion vectors) named by delete manifests. */
  DELETE_FILES,
  /** Data and delete manifests. */
  MANIFESTS,
  /** Manifest lists of snapshots. */
  MANIFEST_LISTS,
  /** Puffin statistics and partition statistics files. */
  STATISTICS_FILES,
  /** Table and view metadata files (previous and current). */
  METADATA_FILES,
  /** Files no metadata named that the sweep found under the roots. */
  OTHER
}
