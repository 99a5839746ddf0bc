package dev.lethe.server.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;

/**
 * Sends the answer, then reads and discards what the request left of its body
 * (docs/design/0117-answering-refused-bodies.md). A request refused before its body was read (413
 * by {@code Content-Length}, 400 on a bad path, 401, 403) otherwise leaves the body unread; the
 * HTTP server then closes the connection while the client is still writing, and the client can see
 * a reset (a failed write, or "header parser received no bytes") instead of the answer. Draining
 * makes the body end where HTTP/1.1 expects it, so the answer arrives whole and the connection
 * stays open.
 *
 * <p>At most {@code limit} bytes are drained: a body whose unread rest is longer (known from its
 * {@code Content-Length}, or found while reading a chunked one) is left as before, and its
 * connection closed, so an unauthenticated client cannot hold a request thread for more than one
 * request's worth of reading. A read that fails (the client went away, the idle timeout) ends the
 * drain quietly; the answer is written as it would have been. Nothing is drained after a {@code 401}:
 * a caller without a valid token is answered at once with {@code Connection: close}, whatever its
 * body does.
 *
 * <p>A servlet filter around the whole Javalin servlet, not a Javalin {@code after} handler: a
 * before handler that answers and calls {@code skipRemainingHandlers} (the store's dot-segment
 * check) skips the after handlers too. Thread-safe.
 */
public final class UnreadBodyDrain implements Filter {
  private final long limit;

  /** @param limit the most bytes to read and discard per request, at least 0 */
  public UnreadBodyDrain(long limit) {
    this.limit = limit;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    chain.doFilter(request, response);
    if (request.isAsyncStarted()) {
      return; // answered later, on another thread
    }
    // The answer goes out first, so a client that waits for it before sending its body (as an
    // Expect: 100-continue client may) has it at once instead of when the drain gives up; then
    // the rest of the body is read, so the connection is not closed over unread bytes.
    // Closing the output completes the answer (with its Content-Length) rather than flushing a
    // part of it. A rest that will not be drained closes the connection after the answer, so the
    // answer must say so: sent as keep-alive, the client would pool the connection and its next
    // request would meet the close ("header parser received no bytes").
    // A caller without a valid token gets nothing read for it: its answer is not held for a body
    // that may never come (docs/design/0420-a-slow-client-holds-nothing-of-the-others.md)
    boolean untrusted = ((HttpServletResponse) response).getStatus() == 401;
    long drainLimit = untrusted ? 0 : limit;
    if (!response.isCommitted() && !drainsWhole((HttpServletRequest) request, drainLimit)) {
      ((HttpServletResponse) response).setHeader("Connection", "close");
    }
    try {
      response.getOutputStream().close();
    } catch (IllegalStateException writerUsed) {
      response.getWriter().close();
    }
    drain((HttpServletRequest) request, drainLimit);
  }

  /**
   * Returns whether {@link #drain} leaves {@code request}'s body read to its end: there is none,
   * it was read, or its length is known and at most {@code limit}. A chunked body not read to its
   * end may be longer than {@code limit}, so it is not counted on.
   */
  static boolean drainsWhole(HttpServletRequest request, long limit) {
    long length = request.getContentLengthLong();
    if (length == 0 || (length < 0 && request.getHeader("Transfer-Encoding") == null)) {
      return true;
    }
    boolean finished;
    try {
      finished = request.getInputStream().isFinished();
    } catch (IllegalStateException readerUsed) {
      finished = true; // the route read the body through getReader, whole
    } catch (IOException gone) {
      return false;
    }
    return finished || (length > 0 && length <= limit);
  }

  /**
   * Drains the unread rest of {@code request}'s body, at most {@code limit} bytes; a no-op when the
   * body was read (or there is none).
   */
  static void drain(HttpServletRequest request, long limit) {
    long length = request.getContentLengthLong();
    if (length == 0 || (length < 0 && request.getHeader("Transfer-Encoding") == null)) {
      return; // no body
    }
    if (length > limit) {
      return; // routes read a body whole or not at all: an unread rest is the whole, too long
    }
    try {
      InputStream in = request.getInputStream();
      byte[] buffer = new byte[8192];
      long left = limit;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          return; // the body ended (at once when the route read it)
        }
        left -= n;
      }
    } catch (IOException | RuntimeException gone) {
      // the client went away or stalled: the connection closes, as it would have without the drain
    }
  }
}
