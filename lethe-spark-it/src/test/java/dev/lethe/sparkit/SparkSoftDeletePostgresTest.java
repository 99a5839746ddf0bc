package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link SparkSoftDeleteTestBase} with the catalog on PostgreSQL ({@code lethe.test.postgres.url});
 * skipped when the URL is empty unless {@code lethe.test.require-dbs=true}.
 */
class SparkSoftDeletePostgresTest extends SparkSoftDeleteTestBase {
  private static Databases.Fresh database;

  @BeforeAll
  static void start() throws Exception {
    database = Databases.postgresOrSkip();
    // the tests are SparkSoftDeleteTestBase's; this class runs them with the catalog on PostgreSQL
    assertThat(database.jdbcUrl()).startsWith("jdbc:postgresql:");
    startServer("spark-sd-pg", database.jdbcUrl());
    assertThat(server).as("server on PostgreSQL").isNotNull();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
      server = null;
    }
    if (database != null) {
      database.drop();
    }
  }
}
