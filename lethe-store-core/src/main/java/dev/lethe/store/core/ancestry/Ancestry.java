package dev.lethe.store.core.ancestry;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Bounded ancestry: every record carries its most recent prior revisions, newest first, capped
 * per store (docs/design/0203-store-model.md "Model"; docs/design/0203-store-model.md "Ancestry"). A chain longer than the cap looks like divergence, so the bound fails safe.
 */
public final class Ancestry {

  /** The default cap. */
  public static final int DEFAULT_CAP = 32;

  private Ancestry() {}

  /**
   * Checks a cap.
   *
   * @throws IllegalArgumentException "ancestor cap must be at least 1" when {@code cap < 1}
   */
  public static int checkCap(int cap) {
    if (cap < 1) {
      throw new IllegalArgumentException("ancestor cap must be at least 1");
    }
    return cap;
  }

  /**
   * Normalises an ancestor list: deduplicated, {@code self} and every revision whose counter is not
   * below {@code self}'s removed, newest first by {@code (counter, hash)}, truncated to {@code cap}.
   * A raw put refuses a record listing a newer "ancestor" before it gets here
   * (docs/design/0118-a-replicated-record-is-consistent.md); dropping them here keeps a record a
   * store stamps over one written before that rule consistent too.
   */
  public static List<Revision> normalize(List<Revision> ancestors, Revision self, int cap) {
    TreeSet<Revision> set = new TreeSet<>(Comparator.reverseOrder());
    for (Revision a : ancestors) {
      if (a.counter() < self.counter()) {
        set.add(a);
      }
    }
    List<Revision> out = new ArrayList<>(Math.min(cap, set.size()));
    for (Revision r : set) {
      if (out.size() == cap) {
        break;
      }
      out.add(r);
    }
    return List.copyOf(out);
  }

  /**
   * Returns the ancestors of a record written over {@code base}: {@code base}'s revision first,
   * then {@code base}'s ancestors, normalised.
   */
  public static List<Revision> after(Record base, Revision self, int cap) {
    List<Revision> list = new ArrayList<>(base.ancestors().size() + 1);
    list.add(base.revision());
    list.addAll(base.ancestors());
    return normalize(list, self, cap);
  }

  /** Returns whether {@code descendant} lists {@code ancestor}'s revision among its ancestors. */
  public static boolean descendsFrom(Record descendant, Record ancestor) {
    return descendant.ancestors().contains(ancestor.revision());
  }
}
