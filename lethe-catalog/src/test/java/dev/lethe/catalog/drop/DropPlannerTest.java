package dev.lethe.catalog.drop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@link DropPlanner} over its whole input space: every {@code purgeRequested} value class, every
 * pair of async headers, every catalog default, soft delete on/off, async available or not, live
 * or absent entry. The expected answer is written out independently as the rules of docs/purge.md
 * ("Rule 6") and compared with the planner's for every combination.
 */
class DropPlannerTest {
  /** Absent, empty, both words in several cases, and malformed values. */
  private static final List<String> PURGE = Arrays.asList(null, "", "true", "TRUE", "True", "false", "FALSE", "yes", "1", " true");
  /** Absent, both words in several cases (and padded: headers are trimmed), and malformed values. */
  private static final List<String> HEADER = Arrays.asList(null, "true", "TRUE", " false ", "false", "", "yes", "0");
  private static final List<String> CATALOG_DEFAULT = Arrays.asList(null, "true", "TRUE", "false", "junk");

  private static Boolean word(String v, boolean trim) {
    if (v == null) {
      return null;
    }
    String w = (trim ? v.trim() : v).toLowerCase(Locale.ROOT);
    return w.equals("true") ? Boolean.TRUE : w.equals("false") ? Boolean.FALSE : null;
  }

  /** The rules, independently of the planner's code. */
  private static Class<? extends DropPlanner.Decision> expected(String purge, String lethe, String gravitino, String def,
      boolean soft, boolean asyncAvailable, DropPlanner.Entry entry) {
    boolean purgeValid = purge == null || purge.isEmpty() || word(purge, false) != null;
    if (!purgeValid) {
      return DropPlanner.Invalid.class;
    }
    Boolean l = word(lethe, true);
    Boolean g = word(gravitino, true);
    if ((lethe != null && l == null) || (gravitino != null && g == null) || (l != null && g != null && !l.equals(g))) {
      return DropPlanner.Invalid.class;
    }
    if (entry == DropPlanner.Entry.ABSENT) {
      return DropPlanner.NotFound.class;
    }
    if (soft) {
      return DropPlanner.SoftDrop.class;
    }
    boolean purgeRequested = purge != null && !purge.isEmpty() && word(purge, false);
    if (!purgeRequested) {
      return DropPlanner.MetadataOnly.class;
    }
    boolean async = l != null ? l : g != null ? g : def != null && def.trim().equalsIgnoreCase("true");
    if (async) {
      return asyncAvailable ? DropPlanner.AsyncPurge.class : DropPlanner.Invalid.class;
    }
    return DropPlanner.SyncPurge.class;
  }

  @Test
  void everyCombinationGetsTheAnswerOfTheRules() {
    int combinations = 0;
    List<String> mismatches = new ArrayList<>();
    for (String purge : PURGE) {
      for (String lethe : HEADER) {
        for (String gravitino : HEADER) {
          for (String def : CATALOG_DEFAULT) {
            for (boolean soft : new boolean[] {false, true}) {
              for (boolean asyncAvailable : new boolean[] {false, true}) {
                for (DropPlanner.Entry entry : DropPlanner.Entry.values()) {
                  combinations++;
                  DropPlanner.Decision d = DropPlanner.plan(new DropPlanner.Request(purge, lethe, gravitino),
                      new DropPlanner.Settings(soft, def, asyncAvailable), entry, "db.t");
                  Class<? extends DropPlanner.Decision> want = expected(purge, lethe, gravitino, def, soft, asyncAvailable, entry);
                  if (!want.isInstance(d)) {
                    mismatches.add(String.format("purge=%s lethe=%s gravitino=%s default=%s soft=%s async=%s %s: got %s, want %s",
                        purge, lethe, gravitino, def, soft, asyncAvailable, entry, d, want.getSimpleName()));
                  }
                  if (d instanceof DropPlanner.SoftDrop s) {
                    assertThat(s.purgeRequested()).isEqualTo("true".equalsIgnoreCase(purge));
                  }
                }
              }
            }
          }
        }
      }
    }
    assertThat(combinations).isEqualTo(10 * 8 * 8 * 5 * 2 * 2 * 2);
    assertThat(mismatches).isEmpty();
  }

  @Test
  void aMalformedAsyncHeaderIsTheSame400WhateverTheOtherInputs() {
    String message = null;
    for (String purge : Arrays.asList(null, "", "true", "false")) {
      for (String def : CATALOG_DEFAULT) {
        for (boolean soft : new boolean[] {false, true}) {
          for (DropPlanner.Entry entry : DropPlanner.Entry.values()) {
            DropPlanner.Decision d = DropPlanner.plan(new DropPlanner.Request(purge, "yes", null),
                new DropPlanner.Settings(soft, def, true), entry, "db.t");
            assertThat(d).isInstanceOf(DropPlanner.Invalid.class);
            String m = ((DropPlanner.Invalid) d).message();
            assertThat(m).isEqualTo("Invalid X-Lethe-Async-Purge header: expected true or false, got 'yes'");
            if (message != null) {
              assertThat(m).isEqualTo(message);
            }
            message = m;
          }
        }
      }
    }
  }

  @Test
  void aRepeatedDropIs404AndNamesTheTable() {
    DropPlanner.Decision d = DropPlanner.plan(new DropPlanner.Request("true", null, null),
        new DropPlanner.Settings(false, null, true), DropPlanner.Entry.ABSENT, "db.t");
    assertThat(d).isEqualTo(new DropPlanner.NotFound("Table does not exist: db.t"));
  }
}
