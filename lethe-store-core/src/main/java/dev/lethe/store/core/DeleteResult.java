package dev.lethe.store.core;

/** Outcome of {@link Store#deleteAs} and {@link Store#purge}. */
public sealed interface DeleteResult permits Deleted, Conflict {}
