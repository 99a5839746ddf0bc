package dev.lethe.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Resolves the server configuration from its four sources, highest first: command-line options,
 * environment variables ({@link ConfigKeys#environmentVariable}), the config file ({@code
 * .properties}, or {@code .yaml}/{@code .yml} with nested maps flattened by dots), defaults.
 * Every value is checked; a bad one is a {@link ConfigException} naming its key.
 */
public final class ServerConfigLoader {
  private ServerConfigLoader() {}

  /**
   * @param cli keys given on the command line (only those the user set)
   * @param environment the process environment
   * @param configFile the config file, or null for none
   * @throws ConfigException if the file cannot be read or a value is invalid
   */
  public static ServerConfig load(Map<String, String> cli, Map<String, String> environment, Path configFile) {
    Map<String, String> file = configFile == null ? Map.of() : readFile(configFile);
    checkKeys(configFile, file);
    Map<String, String> resolved = new HashMap<>(file);
    // every key named by the file or known to Lethe may come from the environment
    for (String key : allKeys(file)) {
      String env = environment.get(ConfigKeys.environmentVariable(key));
      if (env != null) {
        resolved.put(key, env);
      }
    }
    resolved.putAll(cli);
    return toConfig(resolved);
  }

  /** Sections of the key space this loader owns: a key in them that it does not know is a typo. */
  private static final List<String> OWNED_SECTIONS =
      List.of("lethe.server.", "lethe.jdbc.", "lethe.http.", "lethe.auth.", "lethe.catalog.", "lethe.data-dir.",
          "lethe.metrics.", "lethe.log.", ConfigKeys.ASYNC_PURGE, "lethe.entity.", ConfigKeys.STORE);

  /**
   * Rejects keys of the file that cannot be meant: outside {@code lethe.} (e.g. a YAML file without
   * the {@code lethe:} root, whose settings would all be ignored) or unknown within a section this
   * loader owns (e.g. {@code lethe.auth.fil}, which would silently leave auth off).
   */
  private static void checkKeys(Path file, Map<String, String> keys) {
    for (String key : new java.util.TreeSet<>(keys.keySet())) {
      boolean known = KNOWN.contains(key) || key.startsWith(ConfigKeys.CATALOG_PROPERTIES)
          && key.length() > ConfigKeys.CATALOG_PROPERTIES.length();
      if (!key.startsWith("lethe.")) {
        throw new ConfigException("Invalid config file " + file + ": unknown key " + key + " (every key starts with lethe.)");
      }
      if (!known && (key.equals("lethe.data-dir") || OWNED_SECTIONS.stream().anyMatch(key::startsWith))) {
        throw new ConfigException("Invalid config file " + file + ": unknown key " + key);
      }
    }
  }

  private static final java.util.Set<String> KNOWN = known();

  private static java.util.Set<String> known() {
    java.util.Set<String> keys = new java.util.HashSet<>(List.of(ConfigKeys.HOST, ConfigKeys.PORT,
        ConfigKeys.DATA_DIR, ConfigKeys.JDBC_URL, ConfigKeys.JDBC_USER, ConfigKeys.JDBC_PASSWORD,
        ConfigKeys.JDBC_POOL_SIZE, ConfigKeys.WAREHOUSE, ConfigKeys.ALLOWED_LOCATIONS, ConfigKeys.MAX_REQUEST_BYTES,
        ConfigKeys.AUTH_FILE, ConfigKeys.AUTH_RELOAD_INTERVAL_MS, ConfigKeys.METRICS_PUBLIC, ConfigKeys.SHUTDOWN_TIMEOUT_MS, ConfigKeys.LOG_FORMAT, ConfigKeys.LOG_REQUESTS,
        ConfigKeys.IDLE_TIMEOUT_MS,
        ConfigKeys.MAX_REQUESTS_PER_CLIENT, ConfigKeys.ALLOWED_ORIGINS));
    keys.addAll(ConfigKeys.ASYNC_PURGE_KEYS);
    keys.addAll(ConfigKeys.SOFT_DELETE_KEYS);
    keys.addAll(ConfigKeys.STORE_KEYS);
    return java.util.Set.copyOf(keys);
  }

  private static List<String> allKeys(Map<String, String> file) {
    java.util.Set<String> keys = new java.util.TreeSet<>(file.keySet());
    keys.addAll(List.of(ConfigKeys.HOST, ConfigKeys.PORT, ConfigKeys.DATA_DIR, ConfigKeys.JDBC_URL,
        ConfigKeys.JDBC_USER, ConfigKeys.JDBC_PASSWORD, ConfigKeys.JDBC_POOL_SIZE, ConfigKeys.WAREHOUSE,
        ConfigKeys.ALLOWED_LOCATIONS, ConfigKeys.MAX_REQUEST_BYTES, ConfigKeys.AUTH_FILE,
        ConfigKeys.AUTH_RELOAD_INTERVAL_MS, ConfigKeys.METRICS_PUBLIC, ConfigKeys.SHUTDOWN_TIMEOUT_MS, ConfigKeys.LOG_FORMAT, ConfigKeys.LOG_REQUESTS, ConfigKeys.IDLE_TIMEOUT_MS,
        ConfigKeys.MAX_REQUESTS_PER_CLIENT, ConfigKeys.ALLOWED_ORIGINS));
    keys.addAll(ConfigKeys.ASYNC_PURGE_KEYS);
    keys.addAll(ConfigKeys.SOFT_DELETE_KEYS);
    keys.addAll(ConfigKeys.STORE_KEYS);
    return List.copyOf(keys);
  }

  static ServerConfig toConfig(Map<String, String> values) {
    String host = nonBlank(values, ConfigKeys.HOST, "127.0.0.1");
    int port = intIn(values, ConfigKeys.PORT, 9001, 0, 65535);
    Path dataDir = Path.of(nonBlank(values, ConfigKeys.DATA_DIR, "./lethe-data"));
    String jdbcUrl = optional(values, ConfigKeys.JDBC_URL);
    if (jdbcUrl != null && !(jdbcUrl.startsWith("jdbc:h2:") || jdbcUrl.startsWith("jdbc:postgresql:")
        || jdbcUrl.startsWith("jdbc:mysql:") || jdbcUrl.startsWith("jdbc:mariadb:"))) {
      throw new ConfigException("Invalid " + ConfigKeys.JDBC_URL
          + ": expected a jdbc:h2:, jdbc:postgresql:, jdbc:mysql: or jdbc:mariadb: URL");
    }
    int poolSize = intIn(values, ConfigKeys.JDBC_POOL_SIZE, 10, 1, 1000);
    long maxRequest = ConfigNumbers.number(values, ConfigKeys.MAX_REQUEST_BYTES, ServerConfig.DEFAULT_MAX_REQUEST_BYTES, 1, Long.MAX_VALUE);
    String auth = optional(values, ConfigKeys.AUTH_FILE);
    Path authFile = null;
    if (auth != null) {
      authFile = Path.of(auth);
      if (!Files.isRegularFile(authFile)) {
        throw new ConfigException("Invalid " + ConfigKeys.AUTH_FILE + ": not a readable file: " + auth);
      }
    }
    allowedLocations(values); // fail start-up on a location that does not parse
    AsyncPurgeConfig.settings(values); // fail start-up on a bad async purge key
    AsyncPurgeConfig.encryptionKey(values);
    SoftDeleteConfig.settings(values); // fail start-up on a bad soft deletion key
    StoreConfig.grpcPort(values, port); // and on a bad gRPC port
    OperationsConfig.metricsPublic(values);
    OperationsConfig.shutdownTimeoutMs(values);
    OperationsConfig.logFormat(values);
    OperationsConfig.logRequests(values);
    ServerConfig config = new ServerConfig(host, port, dataDir, jdbcUrl, optional(values, ConfigKeys.JDBC_USER),
        optional(values, ConfigKeys.JDBC_PASSWORD), poolSize, optional(values, ConfigKeys.WAREHOUSE),
        maxRequest, authFile, values);
    StoreConfig.settings(config); // and on a bad store key, or an old default store the new default would set aside
    return config;
  }

  /**
   * The value of {@link ConfigKeys#ALLOWED_LOCATIONS}: null when unset, else the comma-separated
   * locations, each checked to parse (docs/design/0001-purge-confinement-and-ownership.md §1).
   *
   * @throws ConfigException naming the key and the location that does not parse
   */
  public static String allowedLocations(Map<String, String> values) {
    String v = values.get(ConfigKeys.ALLOWED_LOCATIONS);
    if (v == null) {
      return null;
    }
    for (String entry : v.split(",")) {
      if (!entry.isBlank()) {
        try {
          dev.lethe.catalog.location.LocationPath.parse(entry.trim());
        } catch (IllegalArgumentException e) {
          throw new ConfigException("Invalid " + ConfigKeys.ALLOWED_LOCATIONS + ": " + e.getMessage());
        }
      }
    }
    return v.trim();
  }

  private static String optional(Map<String, String> values, String key) {
    String v = values.get(key);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static String nonBlank(Map<String, String> values, String key, String def) {
    String v = values.get(key);
    if (v == null) {
      return def;
    }
    if (v.isBlank()) {
      throw new ConfigException("Invalid " + key + ": empty");
    }
    return v.trim();
  }

  private static int intIn(Map<String, String> values, String key, int def, int min, int max) {
    return (int) ConfigNumbers.number(values, key, def, min, max);
  }

  private static Map<String, String> readFile(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    try {
      if (name.endsWith(".yaml") || name.endsWith(".yml")) {
        Object doc = new Load(LoadSettings.builder().build())
            .loadFromString(Files.readString(file, StandardCharsets.UTF_8));
        Map<String, String> flat = new HashMap<>();
        if (doc != null) {
          if (!(doc instanceof Map<?, ?> map)) {
            throw new ConfigException("Invalid config file " + file + ": expected a YAML mapping");
          }
          flatten("", map, flat);
        }
        return flat;
      }
      if (name.endsWith(".properties")) {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
          props.load(r);
        }
        Map<String, String> out = new HashMap<>();
        props.stringPropertyNames().forEach(k -> out.put(k, props.getProperty(k)));
        return out;
      }
      throw new ConfigException("Invalid config file " + file + ": expected .properties, .yaml or .yml");
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException("Cannot read config file " + file + ": no such file");
    } catch (IOException e) {
      throw new ConfigException("Cannot read config file " + file + ": " + e);
    } catch (org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException e) {
      // one line, and no echo of the file's content (it may hold a password)
      String where = e.getProblemMark()
          .map(m -> " at line " + (m.getLine() + 1) + ", column " + (m.getColumn() + 1)).orElse("");
      throw new ConfigException("Cannot parse config file " + file + ": " + e.getProblem() + where);
    } catch (RuntimeException e) {
      if (e instanceof ConfigException) {
        throw e;
      }
      throw new ConfigException("Cannot parse config file " + file + ": " + e.getClass().getSimpleName());
    }
  }

  private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String key = prefix.isEmpty() ? String.valueOf(e.getKey()) : prefix + "." + e.getKey();
      if (e.getValue() instanceof Map<?, ?> child) {
        flatten(key, child, out);
      } else if (e.getValue() != null) {
        out.put(key, String.valueOf(e.getValue()));
      }
    }
  }
}
