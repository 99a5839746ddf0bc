package dev.lethe.store.core;

/** Outcome of {@link Store#put} and {@link Store#putRaw}. */
public sealed interface PutResult permits Committed, Conflict, NotFound {}
