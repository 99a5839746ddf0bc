package dev.lethe.server.http;

import dev.lethe.server.auth.AccessCheck;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request log of {@code lethe.log.requests=true} (docs/design/0433-observability.md): one INFO
 * line on logger {@code dev.lethe.server.requests} per answered request, Jetty's own error answers
 * included, once the response is complete. The fields are key-values too, so the JSON format carries
 * them as fields: {@code method}, {@code path} (the raw path, never the query: a query may carry a
 * token or a signed page token), {@code status}, {@code bytes} (response body bytes written),
 * {@code ms} (from the first byte of the request to the last of the answer) and {@code principal}
 * (the name of the bearer's principal; {@code anonymous} when auth is off, no token was sent or the
 * token names no principal; {@code unknown} for two credentials). The token itself is never logged.
 */
public final class RequestLogLine implements RequestLog {
  private static final Logger LOG = LoggerFactory.getLogger("dev.lethe.server.requests");

  private final AccessCheck access;

  /** @param access names the principal of a request's bearer token */
  public RequestLogLine(AccessCheck access) {
    this.access = access;
  }

  @Override
  public void log(Request request, Response response) {
    String method = request.getMethod();
    String path = request.getHttpURI().getPath();
    int status = response.getStatus();
    long bytes = Response.getContentBytesWritten(response);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - request.getBeginNanoTime());
    String principal = principal(request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION));
    LOG.atInfo().addKeyValue("method", method).addKeyValue("path", path).addKeyValue("status", status)
        .addKeyValue("bytes", bytes).addKeyValue("ms", ms).addKeyValue("principal", principal)
        .log("{} {} {} {} bytes {} ms principal={}", method, path, status, bytes, ms, principal);
  }

  private String principal(java.util.List<String> authorization) {
    if (authorization.isEmpty()) {
      return "anonymous";
    }
    if (authorization.size() > 1) {
      return "unknown"; // refused 400 before any route (docs/design/0410-operations.md §1)
    }
    try {
      return access.principal(authorization.get(0));
    } catch (RuntimeException e) {
      return "unknown"; // never the token, nor the exception's message
    }
  }
}
