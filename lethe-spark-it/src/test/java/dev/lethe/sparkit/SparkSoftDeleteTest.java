package dev.lethe.sparkit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link SparkSoftDeleteTestBase} on the embedded H2 database. */
class SparkSoftDeleteTest extends SparkSoftDeleteTestBase {
  @BeforeAll
  static void start() throws Exception {
    startServer("spark-sd-h2", null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }
}
