package dev.lethe.catalog.drop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link DropPlanner} for a view over its whole input space (every {@code purgeRequested} value,
 * every pair of async headers, every catalog default, soft delete and async availability, live or
 * absent entry), against the view rule written out independently: a view carries no purge flag,
 * ignores soft deletion and the catalog default, and only an explicit async header removes its
 * files. Also: the entry is looked up only for a well-formed request, for views and tables alike
 * (docs/design/0052-one-drop-planner.md).
 */
class DropPlannerViewTest {
  private static final List<String> PURGE = Arrays.asList(null, "", "true", "FALSE", "yes", " true");
  private static final List<String> HEADER = Arrays.asList(null, "true", "TRUE", " false ", "false", "", "yes", "0");
  private static final List<String> CATALOG_DEFAULT = Arrays.asList(null, "true", "false", "junk");

  private static Boolean word(String v) {
    if (v == null) {
      return null;
    }
    String w = v.trim().toLowerCase(Locale.ROOT);
    return w.equals("true") ? Boolean.TRUE : w.equals("false") ? Boolean.FALSE : null;
  }

  /** The view rule, independently of the planner's code. */
  private static Class<? extends DropPlanner.Decision> expected(String lethe, String gravitino, boolean asyncAvailable,
      DropPlanner.Entry entry) {
    Boolean l = word(lethe);
    Boolean g = word(gravitino);
    if ((lethe != null && l == null) || (gravitino != null && g == null) || (l != null && g != null && !l.equals(g))) {
      return DropPlanner.Invalid.class;
    }
    boolean async = Boolean.TRUE.equals(l) || Boolean.TRUE.equals(g);
    if (async && !asyncAvailable) {
      return DropPlanner.Invalid.class;
    }
    if (entry == DropPlanner.Entry.ABSENT) {
      return DropPlanner.NotFound.class;
    }
    return async ? DropPlanner.AsyncPurge.class : DropPlanner.MetadataOnly.class;
  }

  @Test
  void everyViewCombinationGetsTheAnswerOfTheViewRuleAndLooksTheEntryUpOnlyWhenWellFormed() {
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
                  AtomicInteger lookups = new AtomicInteger();
                  DropPlanner.Decision d = DropPlanner.plan(DropPlanner.Kind.VIEW, new DropPlanner.Request(purge, lethe, gravitino),
                      new DropPlanner.Settings(soft, def, asyncAvailable), () -> {
                        lookups.incrementAndGet();
                        return entry;
                      }, "db.v");
                  Class<? extends DropPlanner.Decision> want = expected(lethe, gravitino, asyncAvailable, entry);
                  int wantLookups = want == DropPlanner.Invalid.class ? 0 : 1;
                  if (!want.isInstance(d) || lookups.get() != wantLookups) {
                    mismatches.add(String.format("purge=%s lethe=%s gravitino=%s default=%s soft=%s async=%s %s: got %s after %d"
                        + " lookups, want %s after %d", purge, lethe, gravitino, def, soft, asyncAvailable, entry, d,
                        lookups.get(), want.getSimpleName(), wantLookups));
                  }
                  if (d instanceof DropPlanner.NotFound n) {
                    assertThat(n.message()).isEqualTo("View does not exist: db.v");
                  }
                }
              }
            }
          }
        }
      }
    }
    assertThat(combinations).isEqualTo(6 * 8 * 8 * 4 * 2 * 2 * 2);
    assertThat(mismatches).isEmpty();
  }

  @Test
  void aTableDropLooksTheEntryUpOnlyForAWellFormedRequestAndAnswersAsWithAKnownEntry() {
    List<String> mismatches = new ArrayList<>();
    for (String purge : PURGE) {
      for (String lethe : HEADER) {
        for (String gravitino : HEADER) {
          for (String def : CATALOG_DEFAULT) {
            for (boolean soft : new boolean[] {false, true}) {
              for (boolean asyncAvailable : new boolean[] {false, true}) {
                for (DropPlanner.Entry entry : DropPlanner.Entry.values()) {
                  DropPlanner.Request request = new DropPlanner.Request(purge, lethe, gravitino);
                  DropPlanner.Settings settings = new DropPlanner.Settings(soft, def, asyncAvailable);
                  AtomicInteger lookups = new AtomicInteger();
                  DropPlanner.Decision lazy = DropPlanner.plan(DropPlanner.Kind.TABLE, request, settings, () -> {
                    lookups.incrementAndGet();
                    return entry;
                  }, "db.t");
                  DropPlanner.Decision known = DropPlanner.plan(request, settings, entry, "db.t");
                  boolean malformed = DropPlanner.plan(request, settings, DropPlanner.Entry.LIVE, "db.t")
                      instanceof DropPlanner.Invalid invalid && !invalid.message().contains("not available");
                  if (!lazy.equals(known) || lookups.get() > 1 || (malformed && lookups.get() != 0)) {
                    mismatches.add(String.format("purge=%s lethe=%s gravitino=%s default=%s soft=%s async=%s %s: %s after %d"
                        + " lookups, with the entry known %s", purge, lethe, gravitino, def, soft, asyncAvailable, entry, lazy,
                        lookups.get(), known));
                  }
                }
              }
            }
          }
        }
      }
    }
    assertThat(mismatches).isEmpty();
  }
}
