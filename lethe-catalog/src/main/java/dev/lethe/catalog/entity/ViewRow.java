package dev.lethe.catalog.entity;

/**
 * An Iceberg view entry.
 *
 * @param viewId UUID string
 * @param catalogId owning catalog
 * @param namespaceId owning namespace
 * @param name view name within the namespace
 * @param metadataLocation current view metadata JSON location, never null
 * @param previousMetadataLocation the location before the last commit, null for a new view
 * @param createdAt ms since epoch
 * @param updatedAt ms since epoch
 */
public record ViewRow(
    String viewId,
    String catalogId,
    String namespaceId,
    String name,
    String metadataLocation,
    String previousMetadataLocation,
    long createdAt,
    long updatedAt) {}
