package dev.lethe.catalog.entity;

/**
 * An Iceberg table entry.
 *
 * @param tableId UUID string
 * @param catalogId owning catalog
 * @param namespaceId owning namespace
 * @param name table name within the namespace
 * @param metadataLocation current metadata JSON location, never null
 * @param previousMetadataLocation the location before the last commit, null for a new table
 * @param deletedAt 0 while live, else ms since epoch of the deletion
 * @param deletionId null while live, else the id of the deletion record
 * @param createdAt ms since epoch
 * @param updatedAt ms since epoch
 */
public record TableRow(
    String tableId,
    String catalogId,
    String namespaceId,
    String name,
    String metadataLocation,
    String previousMetadataLocation,
    long deletedAt,
    String deletionId,
    long createdAt,
    long updatedAt) {}
