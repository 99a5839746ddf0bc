package dev.lethe.server.store;

import dev.lethe.store.grpc.GrpcWire;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The store's gRPC port (docs/design/0141-grpc-transport.md): {@link GrpcStoreService} over the
 * same {@link StoreService} as the HTTP routes, plaintext HTTP/2 on {@code lethe.store.grpc-port}.
 *
 * <p>Stopping follows the server's order: {@link #refuseNew()} (new calls fail {@code
 * UNAVAILABLE}), {@link #drain(long)} (calls in flight finish), {@link #close()} (the rest are
 * cancelled).
 */
public final class GrpcStoreServer implements AutoCloseable {
  /** The setting of the port, which a port that cannot be bound names; listed as {@code ConfigKeys.STORE_GRPC_PORT}. */
  public static final String PORT_KEY = "lethe.store.grpc-port";

  private final Server server;
  private volatile boolean stopping;

  private GrpcStoreServer(Server server) {
    this.server = server;
  }

  /**
   * Starts serving {@code service} on {@code host:port}.
   *
   * @param port as {@code StoreConfig.grpcPort}: 0 for any free port (not -1)
   * @param maxMessageBytes largest request message, bytes (the HTTP body limit)
   * @param callsPerClient calls of one client address in flight at once ({@code
   *     lethe.http.max-requests-per-client}); more are refused {@code RESOURCE_EXHAUSTED}
   * @param idleTimeoutMs {@code lethe.http.idle-timeout-ms}: a connection that does not finish its
   *     HTTP/2 handshake, holds no call, or does not answer a ping for this long is closed
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static GrpcStoreServer start(StoreService service, String host, int port, long maxMessageBytes,
      int callsPerClient, long idleTimeoutMs) {
    GrpcStoreServer[] self = new GrpcStoreServer[1];
    GrpcStoreService calls = new GrpcStoreService(service, () -> self[0] != null && self[0].stopping);
    ServerInterceptor authorization = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        Context ctx = Context.current().withValue(GrpcStoreService.AUTHORIZATION, headers.get(GrpcWire.AUTHORIZATION));
        return Contexts.interceptCall(ctx, call, headers, next);
      }
    };
    // the HTTP port's bounds on one client, on this port (docs/design/0143-grpc-limits.md)
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
        .maxInboundMessageSize((int) Math.min(Integer.MAX_VALUE, maxMessageBytes))
        .handshakeTimeout(idleTimeoutMs, TimeUnit.MILLISECONDS)
        .maxConnectionIdle(idleTimeoutMs, TimeUnit.MILLISECONDS)
        .keepAliveTime(idleTimeoutMs, TimeUnit.MILLISECONDS)
        .keepAliveTimeout(idleTimeoutMs, TimeUnit.MILLISECONDS)
        .permitKeepAliveTime(idleTimeoutMs, TimeUnit.MILLISECONDS)
        // the last interceptor runs first: a refused call is not authenticated or read
        .addService(ServerInterceptors.intercept(calls, authorization, new GrpcPerClientLimit(callsPerClient)))
        .build();
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serve gRPC on " + host + ":" + port + " (" + PORT_KEY + ")", e);
    }
    self[0] = new GrpcStoreServer(server);
    return self[0];
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  /** New calls are refused ({@code UNAVAILABLE}); calls in flight go on. */
  public void refuseNew() {
    stopping = true;
    server.shutdown();
  }

  /**
   * Waits up to {@code timeoutMs} for calls in flight to finish.
   *
   * @return whether none is left
   */
  public boolean drain(long timeoutMs) throws InterruptedException {
    return server.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /** Cancels calls still running and releases the port. Idempotent. */
  @Override
  public void close() {
    stopping = true;
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
