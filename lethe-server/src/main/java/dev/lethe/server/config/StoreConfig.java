package dev.lethe.server.config;

import dev.lethe.server.store.StoreSettings;
import dev.lethe.store.git.GitStore;
import dev.lethe.store.jdbc.JdbcUrls;
import dev.lethe.store.jdbc.JdbcVendor;
import dev.lethe.store.s3.S3Location;
import dev.lethe.store.s3.S3Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads the {@code lethe.store.*} keys (docs/store.md "The store server") into {@link
 * StoreSettings}; a bad value is a {@link ConfigException} naming its key (start-up exits 2).
 */
public final class StoreConfig {
  private StoreConfig() {}

  /** Largest ancestor cap accepted, as for {@code lethe store --ancestor-cap}. */
  static final int MAX_ANCESTOR_CAP = 100_000;

  /**
   * The store a configuration serves ({@link StoreChoice}; docs/design/0434-one-store-for-every-replica.md).
   *
   * @throws ConfigException when the choice is a {@link StoreChoice.Refuse}: the old default store
   *     holds records and the new default would set it aside
   */
  public static StoreChoice.Serve choice(ServerConfig config) {
    String configured = config.properties().get(ConfigKeys.STORE_URI);
    Path legacy = legacyDirectory(config.dataDir());
    String legacyUri = "file:" + legacy;
    // only looked at when it can change the answer: a configured store or an H2 catalog never refuses
    boolean holds = configured == null && StoreChoice.catalogStoreUri(config.effectiveJdbcUrl()).isPresent()
        && holdsRecords(legacy);
    StoreChoice choice = StoreChoice.decide(config.effectiveJdbcUrl(), configured == null ? null : configured.trim(),
        legacyUri, holds);
    if (choice instanceof StoreChoice.Refuse refuse) {
      throw new ConfigException(refuse.message());
    }
    return (StoreChoice.Serve) choice;
  }

  /** The old (and, on an H2 catalog, current) default store directory, {@code <data-dir>/store}, absolute. */
  static Path legacyDirectory(Path dataDir) {
    return dataDir.toAbsolutePath().normalize().resolve("store");
  }

  /**
   * Whether a {@code file:} store directory holds at least one record (a tombstone counts): a
   * {@code <namespace>/<collection>/<id>.json} file outside {@code _blobs/} and {@code ~ledger/}.
   * A missing directory holds none.
   *
   * @throws ConfigException if the directory cannot be read
   */
  static boolean holdsRecords(Path storeDir) {
    if (!Files.isDirectory(storeDir)) {
      return false;
    }
    try (Stream<Path> files = Files.find(storeDir, 3, (path, attrs) -> attrs.isRegularFile()
        && storeDir.relativize(path).getNameCount() == 3
        && path.getFileName().toString().endsWith(".json")
        && !storeDir.relativize(path).getName(0).toString().equals("_blobs")
        && !storeDir.relativize(path).getName(0).toString().startsWith("~"))) {
      return files.findAny().isPresent();
    } catch (IOException | UncheckedIOException e) {
      throw new ConfigException("Cannot read the old default store " + storeDir + " to choose the store: " + e.getMessage());
    }
  }

  /**
   * @param config the resolved configuration; its catalog database and data directory decide the
   *     default store ({@link #choice})
   * @throws ConfigException naming the key of a bad value; a URI is quoted without its password
   */
  public static StoreSettings settings(ServerConfig config) {
    StoreChoice.Serve choice = choice(config);
    Map<String, String> values = config.properties();
    String uri = choice.uri();
    uri = uri.trim();
    if (uri.startsWith("jdbc:")) {
      if (!JdbcVendor.supports(uri)) {
        throw new ConfigException("Invalid " + ConfigKeys.STORE_URI + ": " + JdbcVendor.describeUnsupported(uri));
      }
    } else if (uri.startsWith("file:")) {
      String dir = uri.substring("file:".length());
      if (dir.startsWith("//")) {
        dir = dir.substring(2);
      }
      if (dir.isBlank()) {
        throw new ConfigException("Invalid " + ConfigKeys.STORE_URI + ": '" + uri + "' names no directory (e.g. file:/data/store)");
      }
    } else if (S3Location.supports(uri)) {
      try {
        S3Settings.resolve(S3Location.parse(uri), s3Settings(values), Map.of());
      } catch (IllegalArgumentException e) {
        throw new ConfigException("Invalid " + ConfigKeys.STORE_URI + ": " + e.getMessage());
      }
    } else if (uri.startsWith(GitStore.SCHEME)) {
      try {
        GitStore.refusal(GitStore.directoryOf(uri).orElseThrow()).ifPresent(problem -> {
          throw new IllegalArgumentException(problem);
        });
      } catch (IllegalArgumentException e) {
        throw new ConfigException("Invalid " + ConfigKeys.STORE_URI + ": " + e.getMessage());
      }
    } else {
      throw new ConfigException("Invalid " + ConfigKeys.STORE_URI + ": '" + JdbcUrls.redact(uri)
          + "' is not a store URI this server can serve (use file:DIR, git:DIR, jdbc:postgresql://…, jdbc:mariadb://…, jdbc:h2:…"
          + " or s3://bucket/prefix)");
    }
    int cap = (int) ConfigNumbers.number(values, ConfigKeys.STORE_ANCESTOR_CAP, 32, 1, MAX_ANCESTOR_CAP);
    int pool = (int) ConfigNumbers.number(values, ConfigKeys.STORE_POOL_SIZE, 10, 1, 1000);
    String clock = values.get(ConfigKeys.STORE_TESTING_CLOCK_FILE);
    Path clockFile = clock == null || clock.isBlank() ? null : Path.of(clock.trim());
    return choice.inCatalogDatabase()
        ? new StoreSettings(uri, cap, pool, clockFile, s3Settings(values), config.jdbcUser(), config.jdbcPassword())
        : new StoreSettings(uri, cap, pool, clockFile, s3Settings(values), null, null);
  }

  private static Map<String, String> s3Settings(Map<String, String> values) {
    Map<String, String> out = new java.util.HashMap<>();
    for (String key : ConfigKeys.STORE_S3_KEYS) {
      if (values.get(key) != null) {
        out.put(key, values.get(key));
      }
    }
    return Map.copyOf(out);
  }

  /**
   * The port {@code lethe.store.grpc-port} asks for: its value (0 = off, 1–65535), or when unset
   * {@value dev.lethe.store.grpc.GrpcWire#DEFAULT_PORT}, except on a server whose HTTP port is 0
   * (any free port), which gets any free gRPC port too.
   *
   * @return the port to bind, 0 for any free one, or -1 for off
   * @throws ConfigException for a value that is not a port
   */
  public static int grpcPort(Map<String, String> values, int httpPort) {
    String v = values.get(ConfigKeys.STORE_GRPC_PORT);
    if (v == null || v.isBlank()) {
      return httpPort == 0 ? 0 : dev.lethe.store.grpc.GrpcWire.DEFAULT_PORT;
    }
    int port;
    try {
      port = Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("Invalid " + ConfigKeys.STORE_GRPC_PORT + ": not a number: " + v.trim());
    }
    if (port < 0 || port > 65535) {
      throw new ConfigException("Invalid " + ConfigKeys.STORE_GRPC_PORT + ": " + port + " (expected 0 for off or 1 to 65535)");
    }
    return port == 0 ? -1 : port;
  }
}
