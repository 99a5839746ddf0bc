package dev.lethe.server.config;

import dev.lethe.server.store.StoreSettings;
import dev.lethe.store.git.GitStore;
import dev.lethe.store.jdbc.JdbcUrls;
import dev.lethe.store.jdbc.JdbcVendor;
import dev.lethe.store.s3.S3Location;
import dev.lethe.store.s3.S3Settings;
import java.nio.file.Path;
import java.util.Map;

/**
 * Reads the {@code lethe.store.*} keys (docs/store.md "The store server") into {@link
 * StoreSettings}; a bad value is a {@link ConfigException} naming its key (start-up exits 2).
 */
public final class StoreConfig {
  private StoreConfig() {}

  /** Largest ancestor cap accepted, as for {@code lethe store --ancestor-cap}. */
  static final int MAX_ANCESTOR_CAP = 100_000;

  /**
   * @param values resolved configuration keys
   * @param dataDir the server's data directory, home of the default store {@code file:<data-dir>/store}
   * @throws ConfigException naming the key of a bad value; a URI is quoted without its password
   */
  public static StoreSettings settings(Map<String, String> values, Path dataDir) {
    String uri = values.get(ConfigKeys.STORE_URI);
    if (uri == null) {
      uri = "file:" + dataDir.toAbsolutePath().normalize().resolve("store");
    }
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
    return new StoreSettings(uri, cap, pool, clockFile, s3Settings(values));
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
