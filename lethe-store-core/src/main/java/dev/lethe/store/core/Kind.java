package dev.lethe.store.core;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * A record's kind. Kinds are open: any name of 1 to 64 characters of {@code [a-z0-9_-]} is a
 * kind, and unknown kinds are {@link MergeClass#OPAQUE}. {@link #TOMBSTONE} is a kind of its own
 * and is written only by a delete (docs/design/0203-store-model.md "Model").
 *
 * @param name the kind's name, e.g. {@code document}
 */
public record Kind(String name) {
  // Compiled once: String.matches compiles its pattern on every call, and every record read,
  // parsed or decoded builds a Kind (docs/design/0116-store-request-overhead.md). Declared before
  // the constants below, whose construction uses it.
  private static final Pattern NAME = Pattern.compile("[a-z0-9_-]+");

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
    if (name == null || name.isEmpty() || name.length() > 64 || !NAME.matcher(name).matches()) {
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
