package dev.lethe.server.config;

import dev.lethe.server.http.BodyLimitMessage;
import dev.lethe.server.http.ClientLimits;
import dev.lethe.server.store.GrpcStoreServer;

/** The configuration keys of {@code lethe server} (docs/catalog.md "Configuration"). */
public final class ConfigKeys {
  /** Address to bind; default {@code 127.0.0.1}. */
  public static final String HOST = "lethe.server.host";
  /** Port; default {@code 9001}. */
  public static final String PORT = "lethe.server.port";
  /** Data directory; default {@code ./lethe-data}. */
  public static final String DATA_DIR = "lethe.data-dir";
  /** Catalog database URL; default the H2 file {@code <data-dir>/catalog}. */
  public static final String JDBC_URL = "lethe.jdbc.url";
  /** Database user; default none. */
  public static final String JDBC_USER = "lethe.jdbc.user";
  /** Database password; default none. */
  public static final String JDBC_PASSWORD = "lethe.jdbc.password";
  /** Most pooled database connections; default 10. */
  public static final String JDBC_POOL_SIZE = "lethe.jdbc.pool-size";
  /** Warehouse of catalog {@code main} when it is first created; default {@code <data-dir>/warehouse}. */
  public static final String WAREHOUSE = "lethe.catalog.warehouse";
  /**
   * Prefix of FileIO and catalog properties given to catalog {@code main} when it is first created,
   * e.g. {@code lethe.catalog.properties.s3.endpoint}; set them in the config file or on the command
   * line (their environment names cannot be mapped back to dotted property names).
   */
  public static final String CATALOG_PROPERTIES = "lethe.catalog.properties.";
  /**
   * Further locations where catalog {@code main} lets tables, views and namespaces live besides its
   * warehouse (comma-separated; docs/catalog.md "Allowed locations"). When set it is written into
   * {@code main}'s {@code allowed-locations} property at every start (an empty value removes it);
   * unset leaves the stored property as it is.
   */
  public static final String ALLOWED_LOCATIONS = "lethe.catalog.allowed-locations";
  /** Largest request body in bytes; default 8388608 (8 MiB). */
  public static final String MAX_REQUEST_BYTES = BodyLimitMessage.LIMIT_KEY;
  /** Connection idle timeout, ms: a request whose headers or body stop arriving this long is ended. */
  public static final String IDLE_TIMEOUT_MS = "lethe.http.idle-timeout-ms";
  /** Most requests served at once for one client address; the rest wait without holding a thread. */
  public static final String MAX_REQUESTS_PER_CLIENT = ClientLimits.MAX_REQUESTS_PER_CLIENT_KEY;
  /** Origins (scheme://host[:port], comma-separated) whose browser pages may call the server; default none. */
  public static final String ALLOWED_ORIGINS = "lethe.http.allowed-origins";
  /** Principals file; default none (auth off). */
  public static final String AUTH_FILE = "lethe.auth.file";
  /** ms between two looks at the auth file for new content; default 2000; 0 = only on SIGHUP. */
  public static final String AUTH_RELOAD_INTERVAL_MS = "lethe.auth.reload-interval-ms";
  /**
   * Whether {@code GET /metrics} answers without a token when auth is on (true/false); default
   * false: a bearer token with a read grant is needed (docs/auth.md "Operational routes").
   */
  public static final String METRICS_PUBLIC = "lethe.metrics.public";
  /**
   * Longest wait, in ms, for requests in flight when the server stops (SIGTERM); default 10000,
   * 0..3600000. Requests still running then are answered 503 (docs/catalog.md "Stopping").
   */
  public static final String SHUTDOWN_TIMEOUT_MS = "lethe.server.shutdown-timeout-ms";
  /**
   * Log line format of {@code lethe server}: {@code text} (default) or {@code json}, one JSON object
   * a line (docs/observability.md "Logs").
   */
  public static final String LOG_FORMAT = "lethe.log.format";
  /**
   * Whether every answered request is logged, one line each (method, path without the query,
   * status, bytes, ms, principal; never a token); true/false, default false.
   */
  public static final String LOG_REQUESTS = "lethe.log.requests";

  /** Prefix of the store keys (docs/store.md "The store server"). */
  public static final String STORE = "lethe.store.";
  /**
   * The store served under {@code /store/v1/}: a {@code file:}, {@code git:}, {@code jdbc:} or {@code s3:} store URI;
   * default the catalog's database when {@link #JDBC_URL} is PostgreSQL or MariaDB, else {@code file:<data-dir>/store}
   * ({@link StoreChoice}).
   */
  public static final String STORE_URI = STORE + "uri";
  /** Ancestors kept per record by the served store, at least 1; default 32. */
  public static final String STORE_ANCESTOR_CAP = STORE + "ancestor-cap";
  /** Most pooled connections of a {@code jdbc:} store; default 10. */
  public static final String STORE_POOL_SIZE = STORE + "pool-size";
  /**
   * Port of the store's gRPC transport (docs/store.md "gRPC"): 0 = off; default 9002, or any free
   * port when {@link #PORT} is 0.
   */
  public static final String STORE_GRPC_PORT = GrpcStoreServer.PORT_KEY;
  /**
   * For tests only: a file holding the store's "now" in ms since the epoch, read on every use of
   * the store's clock (stamps of created, updated, deletedAt and blob times); default none, the
   * system clock.
   */
  public static final String STORE_TESTING_CLOCK_FILE = STORE + "testing.clock-file";

  /** The settings of an {@code s3:} store (endpoint, region, path-style, credentials; docs/store.md "S3"). */
  public static final java.util.List<String> STORE_S3_KEYS = dev.lethe.store.s3.S3Settings.KEYS;

  /** Every store key. */
  public static final java.util.List<String> STORE_KEYS = java.util.stream.Stream.concat(
      java.util.stream.Stream.of(STORE_URI, STORE_ANCESTOR_CAP, STORE_POOL_SIZE, STORE_GRPC_PORT, STORE_TESTING_CLOCK_FILE),
      STORE_S3_KEYS.stream()).toList();

  /** Prefix of the asynchronous purge keys (docs/purge.md "Configuration"). */
  public static final String ASYNC_PURGE = "lethe.iceberg-rest.async-purge.";
  /** Concurrent cleanup jobs per server; default 2. */
  public static final String ASYNC_PURGE_WORKER_THREADS = ASYNC_PURGE + "worker-threads";
  /** Server-wide file-delete threads; default 4. */
  public static final String ASYNC_PURGE_DELETE_THREADS = ASYNC_PURGE + "delete-threads";
  /** Files per bulk delete; default 1000. */
  public static final String ASYNC_PURGE_DELETE_BATCH_SIZE = ASYNC_PURGE + "delete-batch-size";
  /** Idle worker poll interval, ms; default 5000. */
  public static final String ASYNC_PURGE_POLL_INTERVAL_MS = ASYNC_PURGE + "poll-interval-ms";
  /** Age after which a running job's heartbeat is stale, ms; default 300000. */
  public static final String ASYNC_PURGE_HEARTBEAT_TIMEOUT_MS = ASYNC_PURGE + "heartbeat-timeout-ms";
  /** Failed attempts before FAILED; default 5. */
  public static final String ASYNC_PURGE_MAX_ATTEMPTS = ASYNC_PURGE + "max-attempts";
  /** Hours terminal jobs are kept; default 720. */
  public static final String ASYNC_PURGE_RETENTION_HOURS = ASYNC_PURGE + "retention-hours";
  /** Base64 AES key (16/24/32 bytes) for captured FileIO properties; default a key generated into {@code <data-dir>/purge.key}. */
  public static final String ASYNC_PURGE_ENCRYPTION_KEY = ASYNC_PURGE + "encryption-key";
  /** Wait ceiling after a cleanup job's first failed attempt, ms; doubled per failure (docs/purge.md "Retries"). */
  public static final String ASYNC_PURGE_RETRY_INITIAL_BACKOFF_MS = ASYNC_PURGE + "retry.initial-backoff-ms";
  /** Cap of the retry wait ceiling, ms. */
  public static final String ASYNC_PURGE_RETRY_MAX_BACKOFF_MS = ASYNC_PURGE + "retry.max-backoff-ms";

  /** Every asynchronous purge key. */
  public static final java.util.List<String> ASYNC_PURGE_KEYS = java.util.List.of(ASYNC_PURGE_WORKER_THREADS,
      ASYNC_PURGE_DELETE_THREADS, ASYNC_PURGE_DELETE_BATCH_SIZE, ASYNC_PURGE_POLL_INTERVAL_MS,
      ASYNC_PURGE_HEARTBEAT_TIMEOUT_MS, ASYNC_PURGE_MAX_ATTEMPTS, ASYNC_PURGE_RETENTION_HOURS, ASYNC_PURGE_ENCRYPTION_KEY,
      ASYNC_PURGE_RETRY_INITIAL_BACKOFF_MS, ASYNC_PURGE_RETRY_MAX_BACKOFF_MS);

  /** Prefix of the soft deletion keys (docs/catalog.md "Configuration"). */
  public static final String SOFT_DELETE = "lethe.entity.soft-delete.";
  /** Whether a table drop keeps the table restorable (true/false); default false. */
  public static final String SOFT_DELETE_ENABLED = SOFT_DELETE + "enabled";
  /** Restore window of a new drop, ms, 0..7776000000 (90 days); default 86400000 (24 h). */
  public static final String SOFT_DELETE_RETENTION_MS = SOFT_DELETE + "retention-ms";
  /** Interval of the expiry timer (claims expired records, finalizes purged ones), ms; default 60000. */
  public static final String SOFT_DELETE_EXPIRY_INTERVAL_MS = SOFT_DELETE + "expiry-interval-ms";

  /** Every soft deletion key. */
  public static final java.util.List<String> SOFT_DELETE_KEYS =
      java.util.List.of(SOFT_DELETE_ENABLED, SOFT_DELETE_RETENTION_MS, SOFT_DELETE_EXPIRY_INTERVAL_MS);

  private ConfigKeys() {}

  /**
   * The environment variable of a key: upper case, {@code .} and {@code -} become {@code _}
   * ({@code lethe.jdbc.url} → {@code LETHE_JDBC_URL}).
   */
  public static String environmentVariable(String key) {
    return key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_');
  }
}
