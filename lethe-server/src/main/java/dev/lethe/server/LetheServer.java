package dev.lethe.server;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthFileWatch;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.OperationsConfig;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.ShutdownGate;
import dev.lethe.store.core.Store;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lethe HTTP server, one process serving the catalog under {@code /iceberg/v1/} and the store
 * named by {@code lethe.store.uri} under {@code /store/v1/}: its start and its stop. What it is made
 * of is {@link ServerComponents}, what it answers is {@link HttpApp}, the ports it answers on are
 * {@link Listeners} (docs/design/0215-one-http-edge-and-composition-root.md).
 */
public final class LetheServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  /** Metalake created and served on start. */
  public static final String DEFAULT_METALAKE = ServerComponents.METALAKE;
  /** Catalog created on first start; the default {@code warehouse}. */
  public static final String DEFAULT_CATALOG = ServerComponents.CATALOG;
  /** How long {@link #close()} waits for requests to answer 503 after each abort step, in ms. */
  static final long ABORT_GRACE_MS = 5_000;

  private final ServerComponents components;
  private final Listeners listeners;
  private final long shutdownTimeoutMs;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile AuthFileWatch authWatch; // null when auth is off or the caller gave the access check

  private LetheServer(ServerComponents components, Listeners listeners, long shutdownTimeoutMs) {
    this.components = components;
    this.listeners = listeners;
    this.shutdownTimeoutMs = shutdownTimeoutMs;
  }

  /**
   * Starts the server and returns once it is listening. Auth is on when {@link
   * ServerConfig#authFile()} names a principals file (docs/auth.md), off otherwise.
   * @throws ConfigException if the auth file is invalid (the message names {@code lethe.auth.file})
   */
  public static LetheServer start(ServerConfig config) {
    ServerAuth auth = ServerAuth.load(config);
    LetheServer server;
    try {
      server = start(config, auth.access());
    } catch (RuntimeException e) {
      if (auth.watch() != null) {
        auth.watch().close();
      }
      throw e;
    }
    server.authWatch = auth.watch();
    auth.announce().run();
    return server;
  }

  /**
   * Starts the server and returns once it is listening; {@code access} is run before every route.
   * @throws RuntimeException if the database cannot be opened or migrated, or the port is taken (nothing stays open)
   */
  public static LetheServer start(ServerConfig config, AccessCheck access) {
    // before anything is opened or logged: a path the server cannot write stops start-up (docs/design/0410-operations.md §3)
    WritablePaths.check(config);
    ServerComponents components = ServerComponents.open(config, Clock.systemUTC());
    Listeners listeners;
    try {
      listeners = Listeners.start(config, HttpApp.create(config, components, access));
    } catch (RuntimeException e) {
      components.close();
      throw e;
    }
    LetheServer server = new LetheServer(components, listeners, OperationsConfig.shutdownTimeoutMs(config.properties()));
    StartupLines.log(config, components, server);
    return server;
  }

  /** The port actually bound. */
  public int port() {
    return listeners.port();
  }

  /** The URI to give an Iceberg REST client, e.g. {@code http://127.0.0.1:9001/iceberg}. */
  public String icebergUri() {
    return listeners.icebergUri();
  }

  /** The base URI of the store routes, e.g. {@code http://127.0.0.1:9001/store/v1}. */
  public String storeUri() {
    return listeners.storeUri();
  }

  /** The store's gRPC URI, e.g. {@code grpc://127.0.0.1:9002}, or null when {@code lethe.store.grpc-port} is 0. */
  public String grpcStoreUri() {
    return listeners.grpcStoreUri();
  }

  /** The store served under {@code /store/v1} (for components in the same process and tests). */
  public Store store() {
    return components.store;
  }

  /** The key this server signs page tokens with (for tests that build a token the server would sign). */
  public PageTokenKey pageTokenKey() {
    return components.pageTokens;
  }

  /**
   * Re-reads the auth file now (SIGHUP): new content that validates replaces the principals.
   *
   * @return true if they were replaced; false when unchanged, invalid (logged) or auth is off
   */
  public boolean reloadAuth() {
    AuthFileWatch w = authWatch;
    return w != null && w.check();
  }

  /** The catalogs served (for management components in the same process). */
  public IcebergCatalogs catalogs() {
    return components.catalogs;
  }

  /**
   * Stops the server (docs/design/0410-operations.md §4): every new request is answered 503; those in
   * flight get {@code lethe.server.shutdown-timeout-ms}, then their database statements are cancelled
   * ({@link CatalogDatabase#interrupt()}), then the pools are closed under them, {@value #ABORT_GRACE_MS}
   * ms apart; then HTTP stops and the components close. Idempotent; one warning line per stage that
   * found requests still running.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long began = System.nanoTime();
    LOG.info("Lethe stopping: {} request(s) in flight, waiting up to {} ms for them", listeners.gate().inFlight(),
        shutdownTimeoutMs);
    try {
      listeners.refuseNew();
      drain(listeners.gate());
      listeners.drainGrpc(shutdownTimeoutMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        listeners.stop();
      } finally {
        if (authWatch != null) {
          authWatch.close();
        }
        components.close();
        LOG.info("Lethe stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
      }
    }
  }

  private void drain(ShutdownGate gate) {
    try {
      if (gate.awaitIdle(shutdownTimeoutMs)) {
        return;
      }
      LOG.warn("{} request(s) still running {} ms after the stop began ({}); cancelling their database statements so"
          + " they are answered 503", gate.inFlight(), shutdownTimeoutMs, ConfigKeys.SHUTDOWN_TIMEOUT_MS);
      components.database.interrupt();
      if (gate.awaitIdle(ABORT_GRACE_MS)) {
        return;
      }
      // stuck elsewhere (a jdbc: store, a connection that ignores the cancel): close the pools under them
      LOG.warn("{} request(s) still running {} ms later; closing the database and the store under them",
          gate.inFlight(), ABORT_GRACE_MS);
      components.database.close();
      components.closeStoreEarly();
      if (!gate.awaitIdle(ABORT_GRACE_MS)) {
        LOG.warn("{} request(s) still running; stopping HTTP under them", gate.inFlight());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
