package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link SparkSoftDeleteTestBase} on the embedded H2 database. */
class SparkSoftDeleteTest extends SparkSoftDeleteTestBase {
  @BeforeAll
  static void start() throws Exception {
    startServer("spark-sd-h2", null);
    // the tests are SparkSoftDeleteTestBase's; this class runs them on the embedded H2 database
    assertThat(server).as("server on embedded H2").isNotNull();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }
}
