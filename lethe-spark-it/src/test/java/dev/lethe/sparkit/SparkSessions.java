package dev.lethe.sparkit;

import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * One Spark session per test JVM (local mode, two threads, two shuffle partitions, no UI), as a user
 * would configure it from the README. Each test class registers its own catalogs on it, pointed at
 * its own server, so the session's start-up cost is paid once per module run.
 */
final class SparkSessions {
  private static SparkSession session;

  private SparkSessions() {}

  static synchronized SparkSession get() {
    if (session == null) {
      session = SparkSession.builder()
          .master("local[2]")
          .appName("lethe-spark-it")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.driver.host", "127.0.0.1")
          // small data on a shared machine: skip code generation and adaptive re-planning (CPU, not behaviour)
          .config("spark.sql.codegen.wholeStage", "false")
          .config("spark.sql.adaptive.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          // Spark would install Hadoop's JVM-wide URL handler factory, which S3Mock's Tomcat also installs
          .config("spark.sql.defaultUrlStreamHandlerFactory.enabled", "false")
          .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
          .getOrCreate();
    }
    return session;
  }

  /** The README's Spark settings for a catalog named {@code name} on a server (rest-catalog-purge included). */
  static Map<String, String> readme(LetheServer server) {
    return Map.of(
        "type", "rest",
        "uri", server.icebergUri(),
        "warehouse", "main",
        "rest-catalog-purge", "true");
  }

  /**
   * Registers catalog {@code name} ({@code spark.sql.catalog.<name>=SparkCatalog} and its
   * properties). Spark creates a catalog on its first use, so a name must not be reused with other
   * properties.
   */
  static void register(String name, Map<String, String> properties) {
    SparkSession spark = get();
    spark.conf().set("spark.sql.catalog." + name, "org.apache.iceberg.spark.SparkCatalog");
    properties.forEach((k, v) -> spark.conf().set("spark.sql.catalog." + name + "." + k, v));
  }
}
