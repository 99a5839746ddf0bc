package dev.lethe.catalog.entity;

import java.util.Map;

/**
 * A namespace (one or more levels) of a catalog.
 *
 * @param namespaceId UUID string
 * @param catalogId owning catalog
 * @param name the levels joined by {@link NamespaceNames#SEPARATOR}
 * @param parentName the parent's name, {@code ""} for a top-level namespace
 * @param properties namespace properties, never null
 * @param createdAt ms since epoch
 * @param updatedAt ms since epoch
 */
public record NamespaceRow(
    String namespaceId,
    String catalogId,
    String name,
    String parentName,
    Map<String, String> properties,
    long createdAt,
    long updatedAt) {
  public NamespaceRow {
    // not Map.copyOf: Iceberg builders probe containsKey(null), which immutable maps reject
    properties = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(properties));
  }
}
