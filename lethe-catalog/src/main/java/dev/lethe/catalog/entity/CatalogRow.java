package dev.lethe.catalog.entity;

import java.util.Map;

/**
 * A catalog of a metalake.
 *
 * @param catalogId UUID string
 * @param metalakeId owning metalake
 * @param name unique within the metalake; the Iceberg REST {@code prefix}
 * @param warehouse root location of tables without an explicit location (a path, {@code file:} or
 *     {@code s3://} URI)
 * @param properties FileIO and catalog properties, never null
 * @param createdAt ms since epoch
 * @param updatedAt ms since epoch
 */
public record CatalogRow(
    String catalogId,
    String metalakeId,
    String name,
    String warehouse,
    Map<String, String> properties,
    long createdAt,
    long updatedAt) {
  public CatalogRow {
    // not Map.copyOf: Iceberg builders probe containsKey(null), which immutable maps reject
    properties = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(properties));
  }
}
