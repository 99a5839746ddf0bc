package dev.lethe.server.paging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.paging.PagingServer.Listing;
import dev.lethe.server.paging.PagingServer.Page;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Paged walks while the catalog churns, over real HTTP on a real server (docs/design/0403-keyset-catalog-listings.md).
 * Churn threads create and drop top-level and nested namespaces, tables, views, soft-delete and
 * undrop tables and enqueue cleanup jobs, with random names that interleave with a set of stable
 * entries nobody touches; meanwhile one walker per listing pages through it with random small page
 * sizes. Oracle: in every walk each entry that existed for the whole walk (the stable entries; for
 * cleanup jobs, every job listed before the walk began) appears exactly once, no key appears twice,
 * and keys come in listing order.
 *
 * <p>Seed: {@code -Dlethe.test.keyset.seed=N} (printed); walks per walker: {@code
 * -Dlethe.test.keyset.walks=N} (at least; default 25), continued until the churn threads made {@code
 * -Dlethe.test.keyset.churn=N} changes (default 120).
 */
class KeysetWalkRandomizedTest {
  private static final int STABLE = 6;
  private static final int CHURNERS = 2;

  @TempDir Path dir;
  private PagingServer s;

  @AfterEach
  void stop() throws Exception {
    if (s != null) {
      s.close();
    }
  }

  /** What a walker found over all its walks. */
  static final class Tally {
    final AtomicInteger walks = new AtomicInteger();
    final AtomicInteger pages = new AtomicInteger();
    final AtomicInteger skipped = new AtomicInteger();
    final AtomicInteger repeated = new AtomicInteger();
    final AtomicInteger outOfOrder = new AtomicInteger();
    final List<String> examples = Collections.synchronizedList(new ArrayList<>());

    boolean clean() {
      return skipped.get() == 0 && repeated.get() == 0 && outOfOrder.get() == 0;
    }

    @Override
    public String toString() {
      return walks + " walks, " + pages + " pages: " + skipped + " stable entries skipped, " + repeated
          + " keys repeated, " + outOfOrder + " out of order" + (examples.isEmpty() ? "" : "; e.g. " + examples.subList(0, Math.min(3, examples.size())));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void everyEntryThatLivesThroughAWalkIsListedExactlyOnce(String backend) throws Exception {
    long seed = Long.getLong("lethe.test.keyset.seed", System.nanoTime());
    int walks = Integer.getInteger("lethe.test.keyset.walks", 25);
    int minChurn = Integer.getInteger("lethe.test.keyset.churn", 120);
    System.out.println("KeysetWalkRandomizedTest[" + backend + "] seed " + seed + " (-Dlethe.test.keyset.seed=" + seed + ")");
    Random random = new Random(seed);
    s = new PagingServer(backend, dir);
    Set<String> used = ConcurrentHashMap.newKeySet();
    for (String ns : List.of("root", "tbl", "vws", "del", "jobs")) {
      used.add(ns);
      assertThat(s.createNamespace(ns)).isEqualTo(200);
    }

    // stable entries, never touched again; the fixed namespaces are stable top-level entries too
    Map<String, Set<String>> stable = new LinkedHashMap<>();
    stable.put("namespaces[]", new HashSet<>(List.of("root", "tbl", "vws", "del", "jobs")));
    for (String k : List.of("namespaces[root]", "tables", "views", "deleted")) {
      stable.put(k, new HashSet<>());
    }
    for (int i = 0; i < STABLE; i++) {
      create(stable.get("namespaces[]"), name(random, used), n -> s.createNamespace(n));
      create(stable.get("namespaces[root]"), name(random, used), n -> s.createNamespace("root", n));
      create(stable.get("tables"), name(random, used), n -> s.createTable("tbl", n));
      create(stable.get("views"), name(random, used), n -> s.createView("vws", n));
      String gone = name(random, used);
      create(stable.get("deleted"), gone, n -> s.createTable("del", n));
      assertThat(s.dropTable("del", gone)).isEqualTo(204);
      String job = name(random, used);
      assertThat(s.createView("jobs", job)).isEqualTo(200);
      assertThat(s.dropViewAsync("jobs", job)).isEqualTo(204);
    }

    List<Listing> listings = List.of(PagingServer.namespaces(), PagingServer.namespaces("root"),
        PagingServer.tables("tbl"), PagingServer.views("vws"), PagingServer.deleted("del"), PagingServer.cleanups(""));
    Map<String, Tally> tallies = new LinkedHashMap<>();
    listings.forEach(l -> tallies.put(l.name(), new Tally()));

    AtomicBoolean walking = new AtomicBoolean(true);
    List<String> churnErrors = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger churnOps = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(CHURNERS + listings.size());
    try {
      List<Future<?>> churn = new ArrayList<>();
      for (int c = 0; c < CHURNERS; c++) {
        Random r = new Random(random.nextLong());
        churn.add(pool.submit(() -> {
          Churner churner = new Churner(r, used);
          while (walking.get()) {
            try {
              churner.step(churnErrors);
            } catch (Exception e) {
              churnErrors.add(e.toString());
            }
            churnOps.incrementAndGet(); // a failed step counts too, so the walks always end
          }
          return null;
        }));
      }
      List<Future<?>> walkers = new ArrayList<>();
      for (Listing l : listings) {
        Random r = new Random(random.nextLong());
        Tally tally = tallies.get(l.name());
        Set<String> fixed = stable.get(l.name()); // none for cleanup jobs: the oracle lists them before each walk
        walkers.add(pool.submit(() -> {
          // at least `walks` walks, and on until the catalog has churned `minChurn` times
          for (int w = 0; w < walks || churnOps.get() < minChurn; w++) {
            walkOnce(l, r.nextInt(3) + 1, fixed, tally);
          }
          return null;
        }));
      }
      for (Future<?> f : walkers) {
        f.get(10, TimeUnit.MINUTES);
      }
      walking.set(false);
      for (Future<?> f : churn) {
        f.get(1, TimeUnit.MINUTES);
      }
    } finally {
      walking.set(false);
      pool.shutdownNow();
    }

    System.out.println("KeysetWalkRandomizedTest[" + backend + "] seed " + seed + ": " + churnOps + " churn operations");
    tallies.forEach((name, t) -> System.out.println("  " + name + ": " + t));
    assertThat(churnErrors).as("churn requests answered as expected (seed " + seed + ")").isEmpty();
    assertThat(churnOps.get()).as("the catalog churned while the walks ran").isGreaterThanOrEqualTo(minChurn);
    tallies.forEach((name, t) -> assertThat(t.clean()).as(name + " (seed " + seed + "): " + t).isTrue());
  }

  /** One walk of a listing; counts what the oracle refuses. {@code fixed} null means: the jobs listed before the walk. */
  private void walkOnce(Listing l, int size, Set<String> fixed, Tally tally) throws Exception {
    boolean jobs = fixed == null;
    Set<String> mustSee = jobs ? new HashSet<>(s.page(l, 10_000, null).keys()) : fixed;
    Map<String, Integer> seen = new HashMap<>();
    String previous = null;
    String token = null;
    do {
      Page p = s.page(l, size, token);
      tally.pages.incrementAndGet();
      for (String key : p.keys()) {
        if (seen.merge(key, 1, Integer::sum) == 2) {
          tally.repeated.incrementAndGet();
          tally.examples.add(l.name() + " repeated " + key);
        }
        if (previous != null && (jobs ? Long.parseLong(key) >= Long.parseLong(previous) : key.compareTo(previous) <= 0)) {
          tally.outOfOrder.incrementAndGet();
        }
        previous = key;
      }
      token = p.next();
    } while (token != null);
    for (String key : mustSee) {
      if (!seen.containsKey(key)) {
        tally.skipped.incrementAndGet();
        tally.examples.add(l.name() + " skipped " + key);
      }
    }
    tally.walks.incrementAndGet();
  }

  private interface Create {
    int apply(String name) throws Exception;
  }

  private static void create(Set<String> into, String name, Create create) throws Exception {
    assertThat(create.apply(name)).as("create " + name).isEqualTo(200);
    into.add(name);
  }

  /** A fresh lowercase name of 1 to 4 letters, unique across the run, so churned and stable names interleave. */
  static String name(Random random, Set<String> used) {
    while (true) {
      int length = 1 + random.nextInt(4);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < length; i++) {
        sb.append((char) ('a' + random.nextInt(26)));
      }
      if (used.add(sb.toString())) {
        return sb.toString();
      }
    }
  }

  /** One churn thread: what it created and may drop again, and one random step at a time. */
  private final class Churner {
    private final Random r;
    private final Set<String> used;
    private final List<String> topLevel = new ArrayList<>();
    private final List<String> nested = new ArrayList<>();
    private final List<String> tables = new ArrayList<>();
    private final List<String> views = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private final List<String> undropped = new ArrayList<>();

    Churner(Random r, Set<String> used) {
      this.r = r;
      this.used = used;
    }

    private String pick(List<String> from) {
      return from.remove(r.nextInt(from.size()));
    }

    private void expect(List<String> errors, String what, int status, int expected) {
      if (status != expected) {
        errors.add(what + " answered " + status);
      }
    }

    void step(List<String> errors) throws Exception {
      boolean create = r.nextBoolean();
      switch (r.nextInt(6)) {
        case 0 -> {
          if (create || topLevel.isEmpty()) {
            String n = name(r, used);
            expect(errors, "create namespace " + n, s.createNamespace(n), 200);
            topLevel.add(n);
          } else {
            String n = pick(topLevel);
            expect(errors, "drop namespace " + n, s.dropNamespace(n), 204);
          }
        }
        case 1 -> {
          if (create || nested.isEmpty()) {
            String n = name(r, used);
            expect(errors, "create namespace root." + n, s.createNamespace("root", n), 200);
            nested.add(n);
          } else {
            String n = pick(nested);
            expect(errors, "drop namespace root." + n, s.dropNamespace("root", n), 204);
          }
        }
        case 2 -> {
          if (create || tables.isEmpty()) {
            String n = name(r, used);
            expect(errors, "create table " + n, s.createTable("tbl", n), 200);
            tables.add(n);
          } else {
            String n = pick(tables);
            expect(errors, "drop table " + n, s.dropTable("tbl", n), 204);
          }
        }
        case 3 -> {
          if (create || views.isEmpty()) {
            String n = name(r, used);
            expect(errors, "create view " + n, s.createView("vws", n), 200);
            views.add(n);
          } else {
            String n = pick(views);
            expect(errors, "drop view " + n, s.dropView("vws", n), 204);
          }
        }
        case 4 -> {
          if (create || deleted.isEmpty()) {
            // into the deleted listing: a new table soft-dropped, or an undropped one dropped again
            String n = undropped.isEmpty() || r.nextBoolean() ? null : pick(undropped);
            if (n == null) {
              n = name(r, used);
              expect(errors, "create table del." + n, s.createTable("del", n), 200);
            }
            expect(errors, "soft-drop table del." + n, s.dropTable("del", n), 204);
            deleted.add(n);
          } else {
            String n = pick(deleted);
            expect(errors, "undrop del." + n, s.undrop("del", n), 200);
            undropped.add(n);
          }
        }
        default -> {
          String n = name(r, used);
          expect(errors, "create view jobs." + n, s.createView("jobs", n), 200);
          expect(errors, "async drop view jobs." + n, s.dropViewAsync("jobs", n), 204);
        }
      }
    }
  }
}
