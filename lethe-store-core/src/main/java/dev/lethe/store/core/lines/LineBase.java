package dev.lethe.store.core.lines;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The lines an ancestor of an append-only record held, written as the difference from the record's
 * own body (docs/design/0156-three-way-line-merge.md): the ancestor held every line of the body
 * except those at {@code without}, plus the lines in {@code with}. Lines are compared as a set.
 * The ancestor's labels and links are kept whole, so a merge can tell a removed label or link from
 * one the other side never had.
 *
 * @param revision the ancestor's revision, one of the record's ancestors; never null
 * @param without indexes (0-based, ascending, no repeats) into the record body's lines that the
 *     ancestor did not hold; never null
 * @param with lines the ancestor held that the record body does not, each once; never null
 * @param labels the ancestor's labels, never null (sorted by name)
 * @param links the ancestor's links, never null
 */
public record LineBase(Revision revision, List<Integer> without, List<String> with,
    Map<String, String> labels, List<RecordKey> links) {

  /** @throws IllegalArgumentException if {@code without} is not ascending without repeats or negative */
  public LineBase {
    Objects.requireNonNull(revision, "revision");
    without = List.copyOf(Objects.requireNonNull(without, "without"));
    with = List.copyOf(Objects.requireNonNull(with, "with"));
    labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    links = links == null ? List.of() : List.copyOf(links);
    int last = -1;
    for (int i : without) {
      if (i <= last) {
        throw new IllegalArgumentException(
            "Invalid base " + revision + ": 'without' must be ascending line indexes, got " + without);
      }
      last = i;
    }
  }
}
