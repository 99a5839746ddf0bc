package dev.lethe.store.core.sync;

import dev.lethe.store.core.RecordKey;

/**
 * A key sync left diverged; neither side was written for it.
 *
 * @param key the key
 * @param reason why it could not be reconciled, one line
 */
public record SyncConflict(RecordKey key, String reason) {}
