package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link CatalogDatabase#checkWritable()} and a lost server connection on real databases
 * (docs/design/0430-health-that-tells-the-truth.md). PostgreSQL runs when {@code
 * lethe.test.postgres.url} is set, MariaDB when {@code lethe.test.mariadb.url} is.
 */
class CatalogDatabaseUnavailableTest {
  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aFreshDatabaseIsWritable(String backend) throws Exception {
    DatabaseSettings settings = JdbcBackends.fresh(backend, tmp);
    try (CatalogDatabase db = CatalogDatabase.open(settings)) {
      db.checkWritable();
    } finally {
      JdbcBackends.drop(backend, settings);
    }
  }

  @Test
  void aPostgresqlSessionThatRefusesWritesIsNotWritable() throws Exception {
    DatabaseSettings settings = JdbcBackends.fresh("postgresql", tmp);
    try {
      CatalogDatabase.open(settings).close(); // migrated while writable
      DatabaseSettings readOnly = new DatabaseSettings(JdbcBackends.withParam(settings.jdbcUrl(),
          "options=-c%20default_transaction_read_only%3Don"), null, null, 2);
      try (CatalogDatabase db = CatalogDatabase.open(readOnly)) {
        assertThatThrownBy(db::checkWritable).hasMessageStartingWith("read-only: ");
      }
    } finally {
      JdbcBackends.drop("postgresql", settings);
    }
  }

  @Test
  void aKilledPostgresqlConnectionIsUnavailableAndTheNextCallReconnects() throws Exception {
    DatabaseSettings fresh = JdbcBackends.fresh("postgresql", tmp);
    String app = "lethe_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    DatabaseSettings settings = new DatabaseSettings(JdbcBackends.withParam(fresh.jdbcUrl(), "ApplicationName=" + app),
        null, null, 2);
    try (CatalogDatabase db = CatalogDatabase.open(settings)) {
      db.checkWritable();
      String server = fresh.jdbcUrl().substring(0, fresh.jdbcUrl().indexOf("currentSchema=") - 1);
      try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
        s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + app + "'");
      }

      Throwable lost = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, db::checkWritable);
      assertThat(DatabaseUnavailable.is(lost)).as(lost.toString()).isTrue();
      assertThat(DatabaseUnavailable.message(lost)).hasValueSatisfying(m ->
          assertThat(m).startsWith(DatabaseUnavailable.PREFIX));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(db::checkWritable);
    } finally {
      JdbcBackends.drop("postgresql", fresh);
    }
  }
}
