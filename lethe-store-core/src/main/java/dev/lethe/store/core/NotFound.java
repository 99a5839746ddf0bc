package dev.lethe.store.core;

/**
 * A write expected a revision but the key is absent (or, on the consumer surface, deleted).
 */
public record NotFound() implements PutResult {}
