package dev.lethe.catalog.jobs;

/** What a cleanup job removes the files of (docs/design/0201-cleanup-jobs.md §8 and its phase 2: views). */
public enum CleanupObjectType {
  /** A table: data, delete, manifest, statistics and metadata files. */
  TABLE,
  /** A view: its metadata files only. */
  VIEW
}
