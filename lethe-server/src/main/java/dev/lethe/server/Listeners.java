package dev.lethe.server;

import dev.lethe.server.config.HttpLimitsConfig;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.StoreConfig;
import dev.lethe.server.http.ShutdownGate;
import dev.lethe.server.iceberg.IcebergRestRoutes;
import dev.lethe.server.store.GrpcStoreServer;
import dev.lethe.server.store.StoreRoutes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ports the server answers on: HTTP ({@link HttpApp}) and, unless {@code lethe.store.grpc-port}
 * is 0, the store's gRPC port (docs/design/0141-grpc-transport.md); their start, the steps of their
 * stop that {@link LetheServer#close()} orders (docs/design/0410-operations.md §4), and the URIs a
 * client is given.
 */
final class Listeners {
  // the stop's lines are the server's, as they always were
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  private final HttpApp http;
  private final GrpcStoreServer grpc; // null when lethe.store.grpc-port is 0
  private final String host;

  private Listeners(HttpApp http, GrpcStoreServer grpc, String host) {
    this.http = http;
    this.grpc = grpc;
    this.host = host;
  }

  /**
   * Starts the gRPC port, then HTTP (so the gRPC port answers before HTTP does).
   *
   * @throws RuntimeException if a port cannot be bound; nothing of this stays open
   */
  static Listeners start(ServerConfig config, HttpApp http) {
    int grpcPort = StoreConfig.grpcPort(config.properties(), config.port());
    GrpcStoreServer grpc = grpcPort < 0 ? null
        : GrpcStoreServer.start(http.storeService, config.host(), grpcPort, config.maxRequestBytes(),
            HttpLimitsConfig.maxRequestsPerClient(config.properties()), HttpLimitsConfig.idleTimeoutMs(config.properties()));
    try {
      http.app.start(config.host(), config.port());
    } catch (RuntimeException e) {
      if (grpc != null) {
        grpc.close();
      }
      throw e;
    }
    return new Listeners(http, grpc, config.host());
  }

  /** The HTTP port actually bound. */
  int port() {
    return http.app.port();
  }

  String icebergUri() {
    return base() + IcebergRestRoutes.ROOT;
  }

  String storeUri() {
    return base() + StoreRoutes.ROOT;
  }

  /** The gRPC URI, or null when there is no gRPC port. */
  String grpcStoreUri() {
    return grpc == null ? null : "grpc://" + hostPort(grpc.port());
  }

  private String base() {
    return "http://" + hostPort(port());
  }

  private String hostPort(int port) {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** Requests in flight on HTTP, and what answers 503 once the stop began. */
  ShutdownGate gate() {
    return http.gate;
  }

  /** The first step of the stop: every new HTTP request is 503, every new gRPC call {@code UNAVAILABLE}. */
  void refuseNew() {
    http.gate.close();
    if (grpc != null) {
      grpc.refuseNew();
    }
  }

  /** Waits up to {@code timeoutMs} for the gRPC calls in flight; one warning line if some are left. */
  void drainGrpc(long timeoutMs) throws InterruptedException {
    if (grpc != null && !grpc.drain(timeoutMs)) {
      LOG.warn("gRPC calls still running {} ms after the stop began; cancelling them", timeoutMs);
    }
  }

  /** Cancels the gRPC calls still running, then stops HTTP. */
  void stop() {
    try {
      if (grpc != null) {
        grpc.close();
      }
      http.app.stop();
    } catch (RuntimeException e) {
      // Jetty stopped everything but some connection did not close within its timeout: nothing left to wait for
      LOG.warn("HTTP stopped; a connection was still open after {} ms", HttpApp.JETTY_STOP_TIMEOUT_MS);
    }
  }
}
