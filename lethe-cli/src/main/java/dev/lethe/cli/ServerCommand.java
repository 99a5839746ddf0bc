package dev.lethe.cli;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.OperationsConfig;
import dev.lethe.server.config.ServerConfigLoader;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code lethe server}: runs the catalog and the store routes until SIGTERM.
 *
 * <p>SIGTERM (or Ctrl-C) stops it within {@code lethe.server.shutdown-timeout-ms} plus a few seconds
 * (requests still running then are answered 503) and exits 0.
 *
 * <p>Settings come from options, then environment variables, then {@code --config FILE}, then
 * defaults (docs/catalog.md "Configuration"). An invalid value exits 2 with one line naming the key.
 */
@Command(name = "server", mixinStandardHelpOptions = true, description = "Run the Lethe server.",
    footerHeading = "%nExit codes:%n",
    footer = {"  0  stopped by SIGTERM or Ctrl-C", "  1  cannot start (port in use, database unreachable)",
        "  2  invalid setting or option (one line naming the key)"})
final class ServerCommand implements Callable<Integer> {
  // the server's start-up and stop lines are LetheServer's
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  @Spec CommandSpec spec;

  @Option(names = "--host", description = "Address to bind (default: 127.0.0.1; key lethe.server.host).")
  String host;

  @Option(names = "--port", description = "Port to listen on (default: 9001; key lethe.server.port).")
  String port;

  @Option(names = "--data-dir", description = "Directory for the embedded database and warehouse (default: ./lethe-data; key lethe.data-dir).")
  String dataDir;

  @Option(names = "--config", paramLabel = "FILE", description = "Configuration file: .properties, .yaml or .yml.")
  Path configFile;

  @Option(names = "--jdbc-url", description = "Catalog database: jdbc:h2:, jdbc:postgresql:, jdbc:mysql: or jdbc:mariadb: URL (default: H2 file <data-dir>/catalog).")
  String jdbcUrl;

  @Option(names = "--jdbc-user", description = "Database user.")
  String jdbcUser;

  @Option(names = "--jdbc-password", description = "Database password.")
  String jdbcPassword;

  @Option(names = "--store-uri", paramLabel = "URI",
      description = "Store served under /store/v1: file:DIR, git:DIR, jdbc:postgresql://…, jdbc:mariadb://…, jdbc:h2:… or s3://bucket/prefix (default: the catalog database when --jdbc-url is PostgreSQL or MariaDB, else file:<data-dir>/store; key lethe.store.uri).")
  String storeUri;

  @Override
  public Integer call() throws Exception {
    ServerConfig config = null;
    LetheServer server;
    // SIGHUP re-reads the auth file (docs/design/0425-auth-file-reload.md); the handler is in place
    // before the server answers, so a HUP right after start is a reload, never the JVM's default exit
    AtomicReference<LetheServer> started = new AtomicReference<>();
    boolean hupIgnored = false;
    try {
      SignalHandler before = Signal.handle(new Signal("HUP"), signal -> {
        LetheServer s = started.get();
        if (s != null) {
          s.reloadAuth();
        }
      });
      // a SIGHUP ignored when the JVM started (nohup) stays ignored: the handler above never runs
      hupIgnored = before == SignalHandler.SIG_IGN;
    } catch (IllegalArgumentException unsupported) {
      // no SIGHUP here: the file is still looked at every lethe.auth.reload-interval-ms
    }
    try {
      config = ServerConfigLoader.load(cliValues(), System.getenv(), configFile);
      LogFormat.apply(OperationsConfig.logFormat(config.properties()));
      server = LetheServer.start(config);
    } catch (ConfigException e) {
      spec.commandLine().getErr().println("lethe server: " + e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      spec.commandLine().getErr().println("lethe server: cannot start: " + withoutSecrets(withCause(e), config));
      return 1;
    }
    // SIGTERM and Ctrl-C end the wait below: the stop runs here and the command exits 0
    // (docs/design/0410-operations.md §4); the hook covers any other exit and is a no-op after it
    CountDownLatch stopRequested = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "lethe-shutdown"));
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        Signal.handle(new Signal(name), signal -> stopRequested.countDown());
      } catch (IllegalArgumentException unsupported) {
        // the platform has no such signal: the shutdown hook stops the server (exit 128 + signal)
      }
    }
    started.set(server);
    if (hupIgnored && config.authFile() != null) {
      long intervalMs = OperationsConfig.authReloadIntervalMs(config.properties());
      LOG.warn("SIGHUP is ignored by this process (started under nohup?): {}", intervalMs > 0
          ? "the auth file is re-read only when it changes, looked at every " + intervalMs + " ms ("
              + ConfigKeys.AUTH_RELOAD_INTERVAL_MS + ")"
          : "the auth file is never re-read; set " + ConfigKeys.AUTH_RELOAD_INTERVAL_MS
              + " above 0 or start the server with SIGHUP not ignored");
    }
    stopRequested.await();
    server.close();
    return 0;
  }

  private Map<String, String> cliValues() {
    Map<String, String> values = new HashMap<>();
    put(values, ConfigKeys.HOST, host);
    put(values, ConfigKeys.PORT, port);
    put(values, ConfigKeys.DATA_DIR, dataDir);
    put(values, ConfigKeys.JDBC_URL, jdbcUrl);
    put(values, ConfigKeys.JDBC_USER, jdbcUser);
    put(values, ConfigKeys.JDBC_PASSWORD, jdbcPassword);
    put(values, ConfigKeys.STORE_URI, storeUri);
    return values;
  }

  private static void put(Map<String, String> values, String key, String value) {
    if (value != null) {
      values.put(key, value);
    }
  }

  /**
   * The failure's message, followed by its cause's when it adds something: the store wraps why it
   * cannot open its database ({@code Connection refused}, {@code database "x" does not exist}) in an
   * UncheckedIOException whose own message names only the (redacted) URL, as {@code lethe store}
   * prints it too.
   */
  static String withCause(RuntimeException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    Throwable cause = e.getCause();
    if (cause != null && cause.getMessage() != null && !cause.getMessage().isBlank()
        && !message.contains(cause.getMessage())) {
      return message + ": " + cause.getMessage().strip().lines().findFirst().orElse("");
    }
    return message;
  }

  /**
   * A start failure's message without the passwords of the catalog's and the store's database: a
   * JDBC driver that cannot parse a URL may quote any piece of it (MariaDB: "Incorrect port value :
   * &lt;password&gt;@host" for {@code jdbc:mariadb://user:password@host/db}).
   */
  private static String withoutSecrets(String message, ServerConfig config) {
    if (message == null || config == null) {
      return message;
    }
    String out = dev.lethe.store.jdbc.JdbcUrls.redact(message, config.effectiveJdbcUrl());
    String store = config.properties().get(ConfigKeys.STORE_URI);
    if (store != null) {
      out = dev.lethe.store.jdbc.JdbcUrls.redact(out, store);
    }
    if (config.jdbcPassword() != null && !config.jdbcPassword().isEmpty()) {
      out = out.replace(config.jdbcPassword(), "***");
    }
    for (String key : java.util.List.of(dev.lethe.store.s3.S3Settings.SECRET_ACCESS_KEY,
        dev.lethe.store.s3.S3Settings.SESSION_TOKEN)) {
      String secret = config.properties().get(key);
      if (secret != null && !secret.isBlank()) {
        out = out.replace(secret.trim(), "***");
      }
    }
    return out;
  }
}
