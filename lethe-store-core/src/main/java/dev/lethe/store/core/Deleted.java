package dev.lethe.store.core;

import java.util.Optional;

/**
 * A delete or purge succeeded.
 *
 * @param tombstone the tombstone a delete wrote; empty when nothing was written (the key was
 *     absent or already a tombstone) and for a purge
 */
public record Deleted(Optional<Record> tombstone) implements DeleteResult {
  /** A delete or purge that wrote nothing. */
  public static Deleted nothingWritten() {
    return new Deleted(Optional.empty());
  }
}
