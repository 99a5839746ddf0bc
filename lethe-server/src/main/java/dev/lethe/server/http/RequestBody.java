package dev.lethe.server.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Reads a request's body for every route that takes one (docs/design/0119-a-body-that-does-not-arrive.md).
 * A body that does not arrive whole is the client's failure, never the server's: a client that sends
 * fewer bytes than its {@code Content-Length} (or stops mid-chunk) and then waits is answered {@code
 * 408} when the connection's idle timeout expires, one whose connection breaks mid-body {@code 400};
 * both close the connection, nothing was read into a decision and nothing was written. Javalin
 * rethrows the read's {@link IOException} unchecked, which every route's error table used to map
 * to {@code 500} with a stack trace in the log.
 */
public final class RequestBody {

  private RequestBody() {}

  /**
   * Returns the whole body (empty when there is none).
   *
   * @throws HttpResponseException 408 when the body stopped arriving until the idle timeout, 400
   *     when the connection failed while it was read; the answer closes the connection
   */
  public static byte[] read(Context ctx) {
    try {
      return ctx.bodyAsBytes();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      if (!(e instanceof IOException io)) {
        throw new IllegalStateException(e);
      }
      ctx.header("Connection", "close");
      if (timedOut(io)) {
        throw new NotRead(408, "Request timeout: the request body stopped arriving before its end "
            + "(fewer bytes than its Content-Length?); nothing was read or written");
      }
      throw new NotRead(400, "Invalid request: the body could not be read whole ("
          + firstLine(io.getMessage()) + "); nothing was read or written");
    }
  }

  private static boolean timedOut(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof TimeoutException || c instanceof java.net.SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static String firstLine(String s) {
    if (s == null || s.isBlank()) {
      return "the connection failed";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** A body that did not arrive whole: 408 (it stopped arriving) or 400 (the connection failed). */
  public static final class NotRead extends HttpResponseException {
    NotRead(int status, String message) {
      super(status, message);
    }
  }
}
