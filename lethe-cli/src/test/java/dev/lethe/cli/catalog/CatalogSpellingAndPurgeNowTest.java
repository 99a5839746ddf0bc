package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Every {@code lethe catalog} command takes the catalog as {@code --catalog}; the old positional
 * spelling still works with one deprecation line; {@code lethe catalog purge-now}; the server log
 * names a soft-dropped table by the entity id the listing shows, its deadline in ISO-8601 beside the
 * ms (docs/design/0432-one-cli-spelling-and-purge-now.md). Real server in process, embedded H2.
 */
class CatalogSpellingAndPurgeNowTest {
  private static final String TABLE_BODY = "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";

  @TempDir Path dir;
  private LetheServer server;
  private StringWriter out;
  private StringWriter err;

  @BeforeEach
  void start() throws Exception {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true",
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    assertThat(send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"sales\"]}").statusCode()).isEqualTo(200);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private void createAndDrop(String name, boolean purge) throws Exception {
    assertThat(send("POST", "/iceberg/v1/main/namespaces/sales/tables", String.format(TABLE_BODY, name)).statusCode())
        .isEqualTo(200);
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/sales/tables/" + name + "?purgeRequested=" + purge, null)
        .statusCode()).isEqualTo(204);
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  private void assertUsageError(int code, String... parts) {
    assertThat(code).as(err.toString()).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().strip().lines()).hasSize(1);
    assertThat(err.toString()).contains(parts);
  }

  @Test
  void everyCommandTakesTheCatalogAsAnOptionAndTheOldSpellingStillWorksWithOneDeprecationLine() throws Exception {
    createAndDrop("orders", true);
    assertThat(run("catalog", "deleted", "--catalog", "main", "sales", "--server", base())).as(err.toString()).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString()).contains("orders");
    assertThat(run("catalog", "deleted", "sales", "--server", base())).as("main is the default").isZero();
    assertThat(out.toString()).contains("orders");
    assertThat(run("catalog", "jobs", "--catalog", "main", "--server", base())).isZero();

    assertThat(run("catalog", "deleted", "main", "sales", "--server", base())).isZero();
    assertThat(out.toString()).contains("orders");
    assertThat(err.toString().strip().lines().toList())
        .containsExactly("lethe catalog deleted: deprecated: the catalog as first argument; use --catalog main");
    assertThat(run("catalog", "undrop", "main", "sales", "orders", "--server", base())).isZero();
    assertThat(out.toString()).startsWith("undropped: main.sales.orders");
    assertThat(err.toString()).contains("deprecated");
  }

  @Test
  void badSpellingsAreOneLineAndExit2BeforeAnyRequest() {
    String nowhere = "http://127.0.0.1:1"; // a request would exit 1
    assertUsageError(run("catalog", "deleted", "--catalog", "main", "main", "sales", "--server", nowhere),
        "lethe catalog deleted", "the catalog is given twice");
    assertUsageError(run("catalog", "undrop", "a", "b", "c", "d", "--server", nowhere), "expected NAMESPACE TABLE, got 4");
    assertUsageError(run("catalog", "purge-now", "sales", "--server", nowhere), "expected NAMESPACE TABLE, got 1");
    assertUsageError(run("catalog", "deleted", "--catalog", "a/b", "sales", "--server", nowhere), "--catalog", "a/b");
    assertUsageError(run("catalog", "jobs", "--catalog", "", "--server", nowhere), "--catalog");
    assertUsageError(run("catalog", "purge-now", "--catalog", "main", "sales..eu", "t", "--server", nowhere),
        "Invalid namespace name");
  }

  @Test
  void purgeNowStartsThePurgeOfARetainedTableAndIsIdempotent() throws Exception {
    createAndDrop("orders", true);
    createAndDrop("kept", false);

    assertThat(run("catalog", "purge-now", "--catalog", "main", "sales", "orders", "--server", base()))
        .as(err.toString()).isZero();
    assertThat(out.toString()).matches("purge started: main\\.sales\\.orders \\(entity id [-0-9a-f]{36}, cleanup job PENDING\\)\\n");
    String first = out.toString();
    assertThat(run("catalog", "purge-now", "sales", "orders", "--server", base())).isZero();
    assertThat(out.toString()).isEqualTo(first);
    assertThat(run("catalog", "jobs", "--server", base())).isZero();
    assertThat(out.toString().lines().filter(l -> l.contains("orders")).count()).isEqualTo(1);

    assertThat(run("catalog", "purge-now", "sales", "kept", "--server", base())).isZero();
    assertThat(out.toString()).startsWith("purged: main.sales.kept (entity id ").contains("files kept");

    assertThat(run("catalog", "purge-now", "sales", "nope", "--server", base())).isEqualTo(1);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().strip().lines().toList()).singleElement().asString()
        .startsWith("lethe catalog purge-now: ").contains("nope");
  }

  @Test
  void theServerLogNamesASoftDropByTheEntityIdTheListingShowsAndItsDeadlineInIso8601() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger("dev.lethe.catalog.softdelete");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO);
    try {
      createAndDrop("orders", true);
      assertThat(run("catalog", "deleted", "sales", "--server", base())).isZero();
      String[] row = out.toString().lines().toList().get(1).split(" +");
      String entityId = row[1];
      String expiresAt = row[3]; // whole seconds, UTC

      assertThat(run("catalog", "undrop", "sales", "orders", "--server", base())).isZero();
      List<String> messages = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      String drop = messages.stream().filter(m -> m.startsWith("Soft-dropped")).findFirst().orElseThrow();
      String until = drop.replaceFirst(".*recoverable until (\\S+) = (\\d+) ms.*", "$1 $2");
      assertThat(drop).contains("entityId " + entityId);
      assertThat(Instant.parse(until.split(" ")[0]).toEpochMilli()).isEqualTo(Long.parseLong(until.split(" ")[1]));
      assertThat(until).startsWith(expiresAt.substring(0, expiresAt.length() - 1));
      assertThat(messages).anySatisfy(m -> assertThat(m).startsWith("Restored table").contains("entityId " + entityId));
    } finally {
      logger.detachAppender(lines);
      logger.setLevel(level);
    }
  }
}
