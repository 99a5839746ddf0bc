package dev.lethe.server.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * Jetty's error handler for failures Jetty answers itself, before any route runs: a request URI
 * Jetty cannot parse (e.g. {@code %00}), a URI or header block over Jetty's limits (414, 431). It
 * writes Iceberg's {@link ErrorResponse} JSON instead of Jetty's HTML page (docs/design/0200-catalog-architecture.md
 * "HTTP surface": never an HTML page or a stack trace). Route errors are written by {@link LetheServer}.
 */
public final class JsonErrorHandler extends ErrorHandler {
  private final IcebergJson json;

  public JsonErrorHandler(IcebergJson json) {
    this.json = json;
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
    String reason = HttpStatus.getMessage(code);
    if (code == 400 && (message == null || message.isBlank() || message.equals(reason))) {
      message = "the request line or headers cannot be parsed (e.g. %00 or a bad %-escape in the path)";
    }
    String text = message == null || message.isBlank() || message.equals(reason)
        ? "HTTP " + code + " " + reason
        : "HTTP " + code + " " + reason + ": " + message;
    String type = code == 404 ? "NotFoundException" : code >= 500 ? "InternalServerError" : "BadRequestException";
    byte[] body = json.write(ErrorResponse.builder().responseCode(code).withType(type).withMessage(text).build());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
