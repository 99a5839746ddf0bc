package dev.lethe.catalog.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.DatabaseVendor;
import dev.lethe.catalog.entity.JdbcBackends;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Migration V6 ({@code next_attempt_at}) on a database a server at V4 left behind, with a job
 * waiting: it opens, the job is still claimable at once (NULL wait), and new writes use the column.
 */
class CleanupJobMigrationTest {
  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aDatabaseAtV4WithAPendingJobMigratesAndTheJobIsClaimableAtOnce(String backend) throws Exception {
    DatabaseSettings settings = JdbcBackends.fresh(backend, tmp);
    try {
      Flyway.configure()
          .dataSource(settings.jdbcUrl(), settings.user(), settings.password())
          .locations(DatabaseVendor.fromJdbcUrl(settings.jdbcUrl()).migrationLocation())
          .table("lethe_schema_history")
          .target("4")
          .load()
          .migrate();
      try (Connection c = DriverManager.getConnection(settings.jdbcUrl()); Statement s = c.createStatement()) {
        s.execute("INSERT INTO lethe_cleanup_job (object_type, metalake_name, catalog_id, catalog_name, namespace, "
            + "object_name, metadata_location, file_io_impl, file_io_props, state, attempts, created_by, created_at, "
            + "updated_at) VALUES ('TABLE', 'default', 'c', 'main', 'db', 't', '/w/t/metadata/1.json', 'io', 'x', "
            + "'PENDING', 1, 'alice', 1, 1)");
      }

      try (CatalogDatabase db = CatalogDatabase.open(settings)) {
        // the claim reads next_attempt_at: it fails unless V6 ran
        JobClaimer.Claimed claimed = JobClaimer.forDatabase(db).claim(60_000).orElseThrow();
        assertThat(claimed.job().objectName()).isEqualTo("t");
        assertThat(claimed.job().nextAttemptAt()).isNull();
      }
    } finally {
      JdbcBackends.drop(backend, settings);
    }
  }
}
