package dev.lethe.catalog.jobs;

/**
 * The groups of files a table purge deletes, declared in delete order (docs/design/0200-catalog-architecture.md "Drop paths").
 *
 * <p>Leaf files go first and the file that makes the table reachable goes last, so a purge that
 * stops part-way leaves a table whose remaining files can still be found from its metadata: data
 * and delete files, then manifests, manifest lists, statistics, partition statistics, the
 * previous metadata files of the metadata log, and the current metadata file.
 */
public enum PurgePhase {
  /** Data files and delete files named by every manifest entry; skipped when {@code gc.enabled=false}. */
  DATA_AND_DELETE_FILES,
  /** Data and delete manifests of every snapshot. */
  MANIFESTS,
  /** Manifest lists of every snapshot. */
  MANIFEST_LISTS,
  /** Puffin statistics files registered in the table metadata. */
  STATISTICS_FILES,
  /** Partition statistics files registered in the table metadata. */
  PARTITION_STATISTICS_FILES,
  /** Metadata files of the metadata log ({@code metadata-log}), oldest first. */
  PREVIOUS_METADATA_FILES,
  /** The current metadata file ({@code TableMetadata.metadataFileLocation()}), deleted last. */
  CURRENT_METADATA_FILE
}
