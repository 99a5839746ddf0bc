package dev.lethe.server.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's error handler for failures Jetty answers itself, before any route runs: a request URI
 * Jetty cannot parse (e.g. {@code %00}), a URI or header block over Jetty's limits (414, 431). It
 * writes JSON instead of Jetty's HTML page (docs/design/0200-catalog-architecture.md "HTTP surface":
 * never an HTML page or a stack trace), in the shape of the path's surface
 * (docs/design/0437-one-error-shape.md). Its body is {@link ErrorMapper#jettyBody}.
 */
public final class JsonErrorHandler extends ErrorHandler {
  private final ErrorMapper errors;

  public JsonErrorHandler(ErrorMapper errors) {
    this.errors = errors;
  }

  /**
   * Every method gets the JSON body: Jetty's default writes one only for GET, POST and HEAD, so a
   * DELETE or PUT Jetty refuses (a bad {@code %}-escape in its path) was an empty 400.
   */
  @Override
  public boolean errorPageForMethod(String method) {
    return true;
  }

  @Override
  protected void generateResponse(
      Request request, Response response, int code, String message, Throwable cause, Callback callback) {
    byte[] body = errors.jettyBody(code, message, path(request));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /**
   * The request's path as sent (still %-encoded), or null when Jetty refused the request line
   * before it had a path (e.g. {@code %00}): that answer keeps Iceberg's shape.
   */
  private static String path(Request request) {
    try {
      HttpURI uri = request.getHttpURI();
      return uri == null ? null : uri.getPath();
    } catch (RuntimeException unparsable) {
      return null;
    }
  }
}
