package dev.lethe.catalog.entity;

/**
 * A metalake: the top of the entity tree.
 *
 * @param metalakeId UUID string
 * @param name unique name
 * @param createdAt ms since epoch
 * @param updatedAt ms since epoch
 */
public record MetalakeRow(String metalakeId, String name, long createdAt, long updatedAt) {}
