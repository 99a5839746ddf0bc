package dev.lethe.store.core;

import java.util.Map;

/**
 * A record's kind. Kinds are open: any name of 1 to 64 characters of {@code [a-z0-9_-]} is a
 * kind, and unknown kinds are {@link MergeClass#OPAQUE}. {@link #TOMBSTONE} is a kind of its own
 * and is written only by a delete (docs/design/0203-store-model.md "Model").
 *
 * @param name the kind's name, e.g. {@code document}
 */
public record Kind(String name) {

  /** A deleted record. */
  public static final Kind TOMBSTONE = new Kind("tombstone");
  /** An opaque document (the default kind of the CLI). */
  public static final Kind DOCUMENT = new Kind("document");
  /** An opaque checkpoint. */
  public static final Kind CHECKPOINT = new Kind("checkpoint");
  /** An append-only log: one entry per line. */
  public static final Kind LOG = new Kind("log");
  /** An append-only set of lines. */
  public static final Kind LINES = new Kind("lines");

  private static final Map<String, MergeClass> KNOWN =
      Map.of("document", MergeClass.OPAQUE, "checkpoint", MergeClass.OPAQUE,
          "log", MergeClass.APPEND_ONLY, "lines", MergeClass.APPEND_ONLY);

  /** @throws IllegalArgumentException if the name is not 1-64 characters of [a-z0-9_-] */
  public Kind {
    if (name == null || name.isEmpty() || name.length() > 64 || !name.matches("[a-z0-9_-]+")) {
      throw new IllegalArgumentException(
          "Invalid kind '" + name + "': expected 1-64 characters of [a-z0-9_-]");
    }
  }

  /** Returns whether this is the tombstone kind. */
  public boolean isTombstone() {
    return equals(TOMBSTONE);
  }

  /** Returns the merge class; unknown kinds and the tombstone are {@link MergeClass#OPAQUE}. */
  public MergeClass mergeClass() {
    return KNOWN.getOrDefault(name, MergeClass.OPAQUE);
  }

  @Override
  public String toString() {
    return name;
  }
}
