package dev.lethe.store.core.sync;

import dev.lethe.store.core.RecordKey;

/**
 * A key sync stepped over because a side holds a corrupt record there
 * (docs/design/0108-records-that-prove-their-content.md); neither side was written for it.
 *
 * @param key the key
 * @param message what is corrupt and where (the store's file, row or server), one line
 */
public record SyncCorrupt(RecordKey key, String message) {}
