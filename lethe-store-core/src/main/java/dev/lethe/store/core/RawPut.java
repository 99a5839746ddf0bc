package dev.lethe.store.core;

import java.util.Objects;
import java.util.Optional;

/**
 * One item of {@link Store#putRawBatch}: the arguments of one {@link Store#putRaw}.
 *
 * @param record the whole record, written verbatim (never null)
 * @param expected the revision the caller expects stored, or empty for "must not exist"
 */
public record RawPut(Record record, Optional<Revision> expected) {
  public RawPut {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(expected, "expected");
  }
}
