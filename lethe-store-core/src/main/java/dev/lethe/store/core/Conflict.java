package dev.lethe.store.core;

/**
 * The expected revision did not match what is stored: a normal, recoverable outcome (re-read and
 * retry).
 *
 * @param current the record stored now, which may be a tombstone on the replication surface
 */
public record Conflict(Record current) implements PutResult, DeleteResult {}
