package dev.lethe.store.core.lines;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.MergeClass;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The three-way merge of append-only records and the ancestor snapshots ({@link LineBase}) a
 * record keeps for it (docs/design/0156-three-way-line-merge.md). Pure: no I/O.
 */
public final class Lines {

  private Lines() {}

  /**
   * What an ancestor held, as a merge base.
   *
   * @param lines its lines, as a set in a fixed order (so every store writes the same bases)
   * @param labels its labels
   * @param links its links
   */
  public record Snapshot(Set<String> lines, Map<String, String> labels, List<RecordKey> links) {
    public Snapshot {
      lines = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(lines));
      labels = Map.copyOf(labels);
      links = List.copyOf(links);
    }

    /** The snapshot of nothing: the base of two independent first versions. */
    public static final Snapshot NONE = new Snapshot(Set.of(), Map.of(), List.of());

    /** Returns the snapshot of a live inline record. */
    public static Snapshot of(Record r) {
      return new Snapshot(new LinkedHashSet<>(split(((Body.Inline) r.body()).bytes())), r.meta().labels(), r.links());
    }
  }

  /** Returns the UTF-8 lines of {@code bytes}: split at {@code \n}, a final newline ends the last line. */
  public static List<String> split(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>();
    if (text.isEmpty()) {
      return out;
    }
    String[] parts = text.split("\n", -1);
    int n = text.endsWith("\n") ? parts.length - 1 : parts.length;
    for (int i = 0; i < n; i++) {
      out.add(parts[i]);
    }
    return out;
  }

  /** Returns the lines in order, each newline-terminated, as UTF-8. */
  public static byte[] join(Iterable<String> lines) {
    StringBuilder b = new StringBuilder();
    for (String l : lines) {
      b.append(l).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The three-way merge of two sides' elements against their common ancestor's, as sets: an
   * element is kept when both sides hold it, or when one side holds it and the base did not (it was
   * added). An element of the base that either side dropped is dropped. Order: {@code first}'s
   * kept elements, then {@code second}'s not yet taken; each once. Callers pass the sides in a fixed
   * order (lower revision first) so both stores compute the same result.
   */
  public static <T> List<T> merge(Set<T> base, List<T> first, List<T> second) {
    Set<T> inFirst = new HashSet<>(first);
    Set<T> inSecond = new HashSet<>(second);
    Set<T> out = new LinkedHashSet<>();
    for (List<T> side : List.of(first, second)) {
      for (T l : side) {
        if ((inFirst.contains(l) && inSecond.contains(l)) || !base.contains(l)) {
          out.add(l);
        }
      }
    }
    return List.copyOf(out);
  }

  /**
   * The three-way merge of two sides' labels: a label either side changed (set, re-valued or
   * removed) since the base takes that side's value; a label both changed to different values is
   * a conflict.
   *
   * @return the merged labels, or empty when a label changed differently on both sides
   */
  public static Optional<Map<String, String>> mergeLabels(
      Map<String, String> base, Map<String, String> first, Map<String, String> second) {
    Set<String> names = new TreeSet<>(base.keySet());
    names.addAll(first.keySet());
    names.addAll(second.keySet());
    Map<String, String> out = new TreeMap<>();
    for (String n : names) {
      String b = base.get(n);
      String f = first.get(n);
      String s = second.get(n);
      String v;
      if (Objects.equals(f, s) || Objects.equals(s, b)) {
        v = f;
      } else if (Objects.equals(f, b)) {
        v = s;
      } else {
        return Optional.empty();
      }
      if (v != null) {
        out.put(n, v);
      }
    }
    return Optional.of(out);
  }

  /** Returns whether records of {@code kind} with {@code body} keep ancestor snapshots. */
  public static boolean keepsBases(Kind kind, Body body) {
    return kind.mergeClass() == MergeClass.APPEND_ONLY && body instanceof Body.Inline;
  }

  /** Returns what {@code r}'s ancestor {@code ancestor} held, or empty when {@code r} keeps no base for it. */
  public static Optional<Snapshot> baseOf(Record r, Revision ancestor) {
    if (!(r.body() instanceof Body.Inline inline) || r.isTombstone()) {
      return Optional.empty();
    }
    for (LineBase b : r.bases()) {
      if (b.revision().equals(ancestor)) {
        return Optional.of(decode(split(inline.bytes()), b));
      }
    }
    return Optional.empty();
  }

  /** Returns the ancestor snapshot that {@code b} describes against the record's {@code lines}. */
  public static Snapshot decode(List<String> lines, LineBase b) {
    Set<String> out = new LinkedHashSet<>();
    int w = 0;
    List<Integer> without = b.without();
    for (int i = 0; i < lines.size(); i++) {
      if (w < without.size() && without.get(w) == i) {
        w++;
        continue;
      }
      out.add(lines.get(i));
    }
    out.addAll(b.with());
    return new Snapshot(out, b.labels(), b.links());
  }

  /** Returns the {@link LineBase} of ancestor {@code ancestor} that held {@code s}, against {@code lines}. */
  public static LineBase encode(Revision ancestor, Snapshot s, List<String> lines) {
    return encode(ancestor, s, lines, new HashSet<>(lines));
  }

  private static LineBase encode(Revision ancestor, Snapshot s, List<String> lines, Set<String> present) {
    List<Integer> without = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!s.lines().contains(lines.get(i))) {
        without.add(i);
      }
    }
    List<String> with = new ArrayList<>();
    for (String l : s.lines()) {
      if (!present.contains(l)) {
        with.add(l);
      }
    }
    return new LineBase(ancestor, without, with, s.labels(), s.links());
  }

  /**
   * Returns the bases a new version keeps: one for each of {@code sources}' revisions (their own
   * content) and each base they keep, re-written against {@code body}, for the revisions in {@code
   * ancestors} only (the bound is the ancestry's). Empty when the new version keeps no bases.
   *
   * @param kind the new version's kind
   * @param body the new version's body
   * @param ancestors the new version's ancestors, already capped
   * @param sources the versions it was written over (a put: the one it replaced; a merge: both
   *     sides); a tombstone or a blob body contributes nothing
   */
  public static List<LineBase> after(Kind kind, Body body, List<Revision> ancestors, List<Record> sources) {
    if (!keepsBases(kind, body)) {
      return List.of();
    }
    Set<Revision> wanted = new HashSet<>(ancestors);
    Map<Revision, Snapshot> known = new LinkedHashMap<>();
    for (Record s : sources) {
      if (s.isTombstone() || !(s.body() instanceof Body.Inline inline)) {
        continue;
      }
      List<String> sLines = split(inline.bytes());
      if (wanted.contains(s.revision())) {
        known.putIfAbsent(s.revision(), new Snapshot(new LinkedHashSet<>(sLines), s.meta().labels(), s.links()));
      }
      for (LineBase b : s.bases()) {
        if (wanted.contains(b.revision())) {
          known.computeIfAbsent(b.revision(), r -> decode(sLines, b));
        }
      }
    }
    List<String> lines = split(((Body.Inline) body).bytes());
    Set<String> present = new HashSet<>(lines);
    List<LineBase> out = new ArrayList<>();
    for (Revision a : ancestors) {
      Snapshot snap = known.get(a);
      if (snap != null) {
        out.add(encode(a, snap, lines, present));
      }
    }
    return List.copyOf(out);
  }
}
