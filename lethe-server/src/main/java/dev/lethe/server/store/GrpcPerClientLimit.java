package dev.lethe.server.store;

import dev.lethe.server.http.ClientLimits;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * At most {@code limit} gRPC calls of one client address in flight at once, from their headers to
 * their end; one more is refused {@code RESOURCE_EXHAUSTED} before it is read
 * (docs/design/0143-grpc-limits.md). The address is the TCP peer's.
 */
final class GrpcPerClientLimit implements ServerInterceptor {

  private final int limit;
  private final Map<InetAddress, Integer> inFlight = new ConcurrentHashMap<>();

  GrpcPerClientLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1");
    }
    this.limit = limit;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
      return next.startCall(call, headers);
    }
    InetAddress address = inet.getAddress();
    boolean[] admitted = new boolean[1];
    inFlight.compute(address, (a, n) -> {
      int now = n == null ? 0 : n;
      admitted[0] = now < limit;
      return admitted[0] ? now + 1 : now;
    });
    if (!admitted[0]) {
      call.close(Status.RESOURCE_EXHAUSTED.withDescription("Too many calls in flight from this client address: at most "
          + limit + " at once (" + ClientLimits.MAX_REQUESTS_PER_CLIENT_KEY + "); retry when one has ended"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    AtomicBoolean released = new AtomicBoolean();
    Runnable release = () -> {
      if (released.compareAndSet(false, true)) {
        inFlight.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
      }
    };
    ServerCall.Listener<Q> listener;
    try {
      listener = next.startCall(call, headers);
    } catch (RuntimeException e) {
      release.run();
      throw e;
    }
    // every call ends in exactly one of these two
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onComplete() {
        try {
          super.onComplete();
        } finally {
          release.run();
        }
      }

      @Override
      public void onCancel() {
        try {
          super.onCancel();
        } finally {
          release.run();
        }
      }
    };
  }
}
