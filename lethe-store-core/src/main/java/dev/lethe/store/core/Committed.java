package dev.lethe.store.core;

/**
 * A put was written.
 *
 * @param record the record as stored, with the revision the store gave it
 */
public record Committed(Record record) implements PutResult {}
