package dev.lethe.server.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The server's stop, seen from requests (docs/design/0410-operations.md §4). Once {@link #close}
 * begins, a filter in front of every route answers new requests 503 ({@value #MESSAGE}) with
 * {@code Connection: close}, and a request that fails while the server stops is answered 503 with
 * the same message instead of 500 and a stack trace: its failure is the stop's doing (its database
 * statements were cancelled), not a bug.
 *
 * <p>One instance per server, shared by its request threads through a request attribute (no static
 * state). Thread-safe.
 */
public final class ShutdownGate {
  /** Message of every 503 answered while the server stops. */
  public static final String MESSAGE = "Server is shutting down; retry the request (on another instance)";

  private static final String ATTRIBUTE = "lethe.shutdown-gate";

  private final AtomicBoolean stopping = new AtomicBoolean();
  private final LongSupplier inFlight;

  /** @param inFlight how many requests the HTTP server is handling now (the caller's own included) */
  public ShutdownGate(LongSupplier inFlight) {
    this.inFlight = inFlight;
  }

  /**
   * The filter in front of every route: remembers the gate on the request, and refuses the request
   * with 503 once the server stops.
   *
   * @throws HttpResponseException 503 while the server stops
   */
  public void filter(Context ctx) {
    ctx.attribute(ATTRIBUTE, this);
    if (stopping.get()) {
      ctx.header("Connection", "close");
      throw new HttpResponseException(503, MESSAGE);
    }
  }

  /** Whether the server handling {@code ctx} is stopping; false for a request the filter never saw. */
  public static boolean stopping(Context ctx) {
    ShutdownGate gate = ctx.attribute(ATTRIBUTE);
    return gate != null && gate.stopping.get();
  }

  /**
   * The status to answer for a failure while the server runs or stops: a server error while it
   * stops is 503, anything else keeps its status.
   *
   * @param stopping whether the server is stopping
   * @param status the status the failure maps to
   */
  public static int status(boolean stopping, int status) {
    return stopping && status >= 500 ? 503 : status;
  }

  /** Starts the stop: every request from now on is answered 503. Idempotent. */
  public void close() {
    stopping.set(true);
  }

  /**
   * Waits until no request is in flight, at most {@code timeoutMs}.
   *
   * @return true if none is left, false if some still run when the time is up
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitIdle(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (inFlight.getAsLong() > 0) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      // Jetty counts requests but offers no wait with a deadline short of its own stop, which drops them
      TimeUnit.MILLISECONDS.sleep(20);
    }
    return true;
  }

  /** Requests in flight now. */
  public long inFlight() {
    return inFlight.getAsLong();
  }
}
