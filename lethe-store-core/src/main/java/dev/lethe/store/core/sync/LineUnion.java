package dev.lethe.store.core.sync;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The merge of an {@code APPEND_ONLY} kind: the ordered union of two bodies' lines, each line once,
 * the first side's lines first. Callers pass the sides in a fixed order (lower revision first) so
 * both stores compute the same merged body.
 */
public final class LineUnion {

  private LineUnion() {}

  /** Returns the union of the UTF-8 lines of {@code first} then {@code second}, newline-terminated. */
  public static byte[] merge(byte[] first, byte[] second) {
    Set<String> lines = new LinkedHashSet<>();
    addLines(lines, new String(first, StandardCharsets.UTF_8));
    addLines(lines, new String(second, StandardCharsets.UTF_8));
    StringBuilder b = new StringBuilder();
    for (String l : lines) {
      b.append(l).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void addLines(Set<String> out, String text) {
    if (text.isEmpty()) {
      return;
    }
    String[] parts = text.split("\n", -1);
    int n = text.endsWith("\n") ? parts.length - 1 : parts.length;
    for (int i = 0; i < n; i++) {
      out.add(parts[i]);
    }
  }
}
