package dev.lethe.server.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * Resolved server settings (see docs/catalog.md "Configuration" for keys and defaults).
 *
 * @param host address to bind, never null
 * @param port TCP port; 0 picks a free one
 * @param dataDir directory for the embedded database and the local warehouse, never null
 * @param jdbcUrl catalog database URL; null selects the embedded H2 file {@code <dataDir>/catalog}
 * @param jdbcUser database user, null for none
 * @param jdbcPassword database password, null for none; never logged
 * @param jdbcPoolSize most pooled database connections, at least 1
 * @param warehouse warehouse location of the default catalog {@code main}; null selects {@code
 *     <dataDir>/warehouse}
 * @param maxRequestBytes largest accepted request body, bytes
 * @param authFile principals file; null turns auth off
 * @param properties every resolved configuration key (for components with their own keys)
 */
public record ServerConfig(
    String host,
    int port,
    Path dataDir,
    String jdbcUrl,
    String jdbcUser,
    String jdbcPassword,
    int jdbcPoolSize,
    String warehouse,
    long maxRequestBytes,
    Path authFile,
    Map<String, String> properties) {

  /** Default largest request body: 8 MiB. */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 8L * 1024 * 1024;

  public ServerConfig {
    properties = Map.copyOf(properties);
  }

  /** Embedded defaults: H2 and a local warehouse under {@code dataDir}, auth off. */
  public ServerConfig(String host, int port, Path dataDir) {
    this(host, port, dataDir, null, null, null, 10, null, DEFAULT_MAX_REQUEST_BYTES, null, Map.of());
  }

  /** The JDBC URL actually used. */
  public String effectiveJdbcUrl() {
    // H2's own shutdown hook would close the database under requests still in flight; the server closes it
    return jdbcUrl != null ? jdbcUrl
        : "jdbc:h2:file:" + dataDir.toAbsolutePath().normalize().resolve("catalog") + ";DB_CLOSE_ON_EXIT=FALSE";
  }

  /** The warehouse location actually used for catalog {@code main}. */
  public String effectiveWarehouse() {
    return warehouse != null ? warehouse : dataDir.toAbsolutePath().normalize().resolve("warehouse").toString();
  }

  @Override
  public String toString() {
    return "ServerConfig[host=" + host + ", port=" + port + ", dataDir=" + dataDir + ", jdbcUrl=" + effectiveJdbcUrl().replaceAll("(?i)(password=)[^&;]*", "$1***")
        + ", warehouse=" + effectiveWarehouse() + ", maxRequestBytes=" + maxRequestBytes + ", authFile=" + authFile + "]";
  }

  /** Whether {@link #host()} is a loopback name or address only ({@code 127.0.0.1}, {@code ::1}, {@code localhost}). */
  public boolean bindsLoopbackOnly() {
    return host.equals("127.0.0.1") || host.equals("::1") || host.equals("localhost");
  }
}
