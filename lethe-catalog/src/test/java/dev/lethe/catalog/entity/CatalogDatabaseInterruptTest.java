package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link CatalogDatabase#interrupt()} (docs/design/0410-operations.md §4): a statement running in
 * the database is cancelled, so the caller waiting on it gets a failure at once instead of hanging,
 * and every later statement fails without reaching the database. On H2, PostgreSQL and MariaDB,
 * with a statement that runs for a minute or more unless cancelled.
 */
class CatalogDatabaseInterruptTest {
  @TempDir Path tmp;

  private static String slowQuery(DatabaseVendor vendor) {
    return switch (vendor) {
      case H2 -> "SELECT MAX(X * 2) FROM SYSTEM_RANGE(1, 100000000000)";
      case POSTGRESQL -> "SELECT COUNT(*) FROM (SELECT pg_sleep(60)) s";
      // SLEEP returns 1 when killed instead of failing; a cross join of a big range fails when killed
      case MYSQL -> "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b, seq_1_to_100000 c";
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aRunningStatementIsCancelledAndLaterOnesFailAtOnce(String backend) throws Exception {
    DatabaseSettings settings = JdbcBackends.fresh(backend, tmp);
    try (CatalogDatabase db = CatalogDatabase.open(settings)) {
      String sql = slowQuery(db.vendor());
      CompletableFuture<Long> slow = CompletableFuture.supplyAsync(
          () -> db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one()));
      await().atMost(Duration.ofSeconds(30)).until(() -> db.runningStatements() == 1);
      assertThat(slow).isNotDone();

      long start = System.nanoTime();
      assertThat(db.interrupt()).isEqualTo(1);
      ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> slow.get(30, TimeUnit.SECONDS));
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.println("CatalogDatabaseInterruptTest " + backend + ": cancelled statement failed after " + ms + " ms: "
          + failed.getCause().getClass().getSimpleName());
      assertThat(ms).isLessThan(10_000);
      assertThat(db.runningStatements()).isZero();

      RuntimeException later = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
          () -> db.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one()));
      assertThat(later).hasStackTraceContaining("the catalog database is closing");
    } finally {
      JdbcBackends.drop(backend, settings);
    }
  }
}
