package dev.lethe.sparkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A read-only token in Spark, configured as the README tells a user ({@code rest.auth.type=none},
 * {@code header.Authorization=Bearer <token>}), against a real {@code lethe server} with auth on:
 * the reader's {@code SELECT} gets the rows and the scan report Iceberg posts after it
 * ({@code POST …/tables/t/metrics}) is accepted with a read grant (docs/auth.md), so the client log
 * holds no 403, no "Failed to report metrics" and no OAuth2 warning; the reader still cannot write.
 */
class SparkReaderTokenTest {
  private static final String ADMIN = "lethe_admin";
  private static final String READER = "lethe_reader";
  private static final String ADMIN_TOKEN = "spark-admin-token";
  private static final String READER_TOKEN = "spark-reader-token";
  /** 403 as a word (not inside a snapshot id or a file name), the exception, the reporter's warning, OAuth2. */
  private static final Pattern REFUSAL =
      Pattern.compile("\\b403\\b|forbidden|failed to report metrics|oauth|not authorized", Pattern.CASE_INSENSITIVE);
  private static LetheServer server;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path auth = Files.createTempFile(work, "spark-auth-", ".yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: " + sha256(ADMIN_TOKEN) + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: " + sha256(READER_TOKEN) + "\n    read: [main]\n");
    server = LetheServer.start("spark-reader", Map.of("lethe.auth.file", auth.toString()), null);
    spark = SparkSessions.get();
    SparkSessions.register(ADMIN, withToken(ADMIN_TOKEN));
    SparkSessions.register(READER, withToken(READER_TOKEN));
    spark.sql("CREATE NAMESPACE " + ADMIN + ".rd");
    spark.sql("CREATE TABLE " + ADMIN + ".rd.t (id BIGINT, region STRING) USING iceberg");
    spark.sql("INSERT INTO " + ADMIN + ".rd.t VALUES (1, 'eu'), (2, 'us'), (3, 'us')");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** The README's Spark settings with auth on: a static bearer token sent as a header. */
  private static Map<String, String> withToken(String token) {
    Map<String, String> properties = new HashMap<>(SparkSessions.readme(server));
    properties.put("rest.auth.type", "none");
    properties.put("header.Authorization", "Bearer " + token);
    return properties;
  }

  private static String sha256(String token) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  /** {@code lethe_iceberg_reports_total{report=…}} on {@code /metrics} (admin token), 0 before the first. */
  private static double reports(String type) throws Exception {
    HttpResponse<String> r = server.send("GET", "/metrics", Map.of("Authorization", "Bearer " + ADMIN_TOKEN));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body().lines().filter(l -> l.startsWith("lethe_iceberg_reports_total{") && l.contains("report=\"" + type + "\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  @Test
  void aReaderTokenRunsSelectWithNoRefusalInTheClientLog() throws Exception {
    double before = reports("scan");
    List<String> lines;
    try (ClientLog log = ClientLog.capture()) {
      assertThat(spark.sql("SELECT * FROM " + READER + ".rd.t ORDER BY id").collectAsList().stream().map(Row::toString))
          .containsExactly("[1,eu]", "[2,us]", "[3,us]");
      assertThat(spark.sql("SELECT count(*) FROM " + READER + ".rd.t WHERE region = 'us'").first().getLong(0)).isEqualTo(2);
      // Iceberg may post the report from its own thread: wait until the server counts it or the client logs a refusal
      Awaitility.await().atMost(Duration.ofSeconds(60))
          .until(() -> reports("scan") > before || log.lines.stream().anyMatch(SparkReaderTokenTest::refusal));
      lines = List.copyOf(log.lines);
    }
    assertThat(lines).as("the capture sees Iceberg's own scan report")
        .anyMatch(l -> l.contains("Received metrics report: ScanReport{tableName=" + READER + ".rd.t"));
    assertThat(lines.stream().filter(SparkReaderTokenTest::refusal)).as("refusals in the client log").isEmpty();
    assertThat(reports("scan")).as("scan reports the server accepted").isGreaterThan(before);
  }

  @Test
  void aReaderTokenCannotInsert() {
    assertThatThrownBy(() -> spark.sql("INSERT INTO " + READER + ".rd.t VALUES (4, 'eu')"))
        .satisfies(e -> assertThat(causes(e)).anyMatch(ForbiddenException.class::isInstance));
    assertThat(spark.sql("SELECT count(*) FROM " + ADMIN + ".rd.t").first().getLong(0)).isEqualTo(3);
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> all = new java.util.ArrayList<>();
    for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
      all.add(t);
    }
    return all;
  }

  /** A client log line that says a request was refused or that iceberg-java guessed OAuth2. */
  private static boolean refusal(String line) {
    return REFUSAL.matcher(line).find();
  }

  /**
   * Spark's logging backend is log4j2: every line at WARN and above from any logger, and every
   * Iceberg line from DEBUG up (its shaded libraries from WARN: the HTTP client's wire log would
   * repeat every header, the token included), as "LEVEL logger: message" plus each exception's
   * class and message.
   */
  private static final class ClientLog extends AbstractAppender implements AutoCloseable {
    final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext context;
    private final LoggerConfig iceberg;
    private final LoggerConfig shaded;

    private ClientLog(LoggerContext context) {
      super("spark-reader-client-log", null, null, true, Property.EMPTY_ARRAY);
      this.context = context;
      this.iceberg = new LoggerConfig("org.apache.iceberg", Level.DEBUG, false);
      this.shaded = new LoggerConfig("org.apache.iceberg.shaded", Level.WARN, true);
    }

    static ClientLog capture() {
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      ClientLog log = new ClientLog(context);
      log.start();
      Configuration config = context.getConfiguration();
      config.addAppender(log);
      config.getRootLogger().addAppender(log, Level.WARN, null);
      log.iceberg.addAppender(log, Level.DEBUG, null);
      config.addLogger("org.apache.iceberg", log.iceberg);
      config.addLogger("org.apache.iceberg.shaded", log.shaded);
      context.updateLoggers();
      return log;
    }

    @Override
    public void append(LogEvent event) {
      StringBuilder line = new StringBuilder(event.getLevel() + " " + event.getLoggerName() + ": "
          + event.getMessage().getFormattedMessage());
      for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
        line.append(" | ").append(t);
      }
      lines.add(line.toString());
    }

    @Override
    public void close() {
      Configuration config = context.getConfiguration();
      config.removeLogger("org.apache.iceberg.shaded");
      config.removeLogger("org.apache.iceberg");
      config.getRootLogger().removeAppender(getName());
      context.updateLoggers();
      stop();
    }
  }
}
