package dev.lethe.server;

import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthFileWatch;
import dev.lethe.server.auth.AuthorizerAccessCheck;
import dev.lethe.server.auth.InvalidAuthFileException;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.OperationsConfig;
import dev.lethe.server.config.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access check a server starts with, from {@code lethe.auth.file} (docs/auth.md), and the one
 * log line that says so, run once the server has started: a start refused on its paths prints its
 * one error line alone (docs/design/0410-operations.md §3).
 *
 * @param access the check run before every route; {@link AccessCheck#ALLOW_ALL} when auth is off
 * @param announce logs whether auth is on, from which file, or why it is off
 * @param watch re-reads the auth file on change; null when auth is off
 */
record ServerAuth(AccessCheck access, Runnable announce, AuthFileWatch watch) {
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  /** @throws ConfigException if the auth file is invalid (the message names {@code lethe.auth.file}) */
  static ServerAuth load(ServerConfig config) {
    AccessCheck access = AccessCheck.ALLOW_ALL;
    Runnable announce;
    AuthFileWatch watch = null;
    if (config.authFile() != null) {
      long intervalMs = OperationsConfig.authReloadIntervalMs(config.properties());
      try {
        AuthFileWatch w = new AuthFileWatch(config.authFile(), intervalMs);
        watch = w;
        access = new AuthorizerAccessCheck(w::authorizer);
        // the operator sees from the log alone that the file took effect, and which one
        announce = () -> {
          LOG.info("Auth is on: {} principal(s) from {} ({})", w.principals(), config.authFile(), ConfigKeys.AUTH_FILE);
          LOG.info("The auth file is re-read on SIGHUP{} ({})",
              intervalMs > 0 ? " and when it changes, looked at every " + intervalMs + " ms" : " only",
              ConfigKeys.AUTH_RELOAD_INTERVAL_MS);
        };
      } catch (InvalidAuthFileException e) {
        throw new ConfigException("Invalid " + ConfigKeys.AUTH_FILE + ": " + e.getMessage());
      }
    } else if (!config.bindsLoopbackOnly()) {
      announce = () -> LOG.warn("Auth is off ({} not set) and the server binds {}: anyone who can reach it can "
          + "change the catalog", ConfigKeys.AUTH_FILE, config.host());
    } else {
      announce = () -> LOG.info("Auth is off ({} not set): every request is allowed; the server binds {} only",
          ConfigKeys.AUTH_FILE, config.host());
    }
    return new ServerAuth(access, announce, watch);
  }
}
