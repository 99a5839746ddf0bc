package dev.lethe.server.store;

import dev.lethe.server.LetheServer;
import dev.lethe.server.ShutdownGate;
import dev.lethe.server.auth.AuthDecision;
import dev.lethe.store.core.format.CorruptRecordException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store routes' one exception-to-status table, and their error body {@code {code, type,
 * message}} (docs/store.md "Routes", its **Errors** item). Outcomes a caller must handle (409
 * Conflict, 412 on a conditional write to an absent key, 404 on a consumer read) are not
 * exceptions; see {@link StoreResponses}.
 */
public final class StoreErrors {
  private static final Logger LOG = LoggerFactory.getLogger(StoreErrors.class);

  /** Path prefix of every store route: errors under it have the store's shape. */
  public static final String PREFIX = "/store/";

  private StoreErrors() {}

  /** Writes the error for {@code e}. */
  static void write(Context ctx, Exception e) {
    if (e instanceof IllegalArgumentException) {
      error(ctx, 400, "BadRequest", oneLine(e.getMessage()));
    } else if (e instanceof NotAuthorizedException) {
      error(ctx, 401, "NotAuthorized", oneLine(e.getMessage()));
    } else if (e instanceof ForbiddenException) {
      error(ctx, 403, "Forbidden", oneLine(e.getMessage()));
    } else if (e instanceof HttpResponseException h) {
      String type = switch (h.getStatus()) {
        case 413 -> "RequestTooLarge";
        case 408 -> "RequestTimeout";
        default -> "BadRequest";
      };
      String message = h.getStatus() == 413 ? dev.lethe.server.BodyLimitMessage.of(h.getMessage()) : h.getMessage();
      error(ctx, h.getStatus(), type, oneLine(message));
    } else if (ShutdownGate.stopping(ctx)) {
      // the stop closed the store or database under this request (docs/design/0410-operations.md §4)
      LOG.warn("Request {} {} answered 503: the server is stopping", ctx.method(), ctx.path());
      ctx.header("Connection", "close");
      error(ctx, 503, "ServiceUnavailable", ShutdownGate.MESSAGE);
    } else if (e instanceof CorruptRecordException c) {
      // The request was fine and retrying will not help: the stored data is damaged, a fault on
      // this side that only the operator can repair. Never served as valid, never 4xx or 503.
      LOG.error("Request {} {}: {}", ctx.method(), ctx.path(), e.getMessage());
      Map<String, Object> extra = new LinkedHashMap<>();
      c.key().ifPresent(k -> extra.put("key", k.toString()));
      error(ctx, 500, "CorruptRecord", oneLine(e.getMessage()), extra);
    } else if (e instanceof UncheckedIOException io) {
      LOG.error("Request {} {}: the store failed", ctx.method(), ctx.path(), io);
      String cause = io.getCause() == null ? "" : ": " + io.getCause().getMessage();
      error(ctx, 503, "StoreUnavailable", oneLine(io.getMessage() + cause));
    } else {
      LOG.error("Request {} {} failed", ctx.method(), ctx.path(), e);
      error(ctx, 500, "InternalServerError", "Internal server error; see the server log");
    }
  }

  /**
   * Writes {@code {code, type, message}} with status {@code code} (and the bearer challenge with a
   * 401), and marks the response so the server's 404/405 fallbacks leave it alone.
   */
  public static void error(Context ctx, int code, String type, String message) {
    error(ctx, code, type, message, Map.of());
  }

  /** {@link #error(Context, int, String, String)} with more fields after {@code message}. */
  static void error(Context ctx, int code, String type, String message, Map<String, Object> extra) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("code", code);
    body.put("type", type);
    body.put("message", message);
    body.putAll(extra);
    if (code == 401) {
      ctx.header("WWW-Authenticate", AuthDecision.Unauthenticated.CHALLENGE);
    }
    ctx.attribute(LetheServer.ERROR_WRITTEN, Boolean.TRUE);
    ctx.status(code).json(body);
  }

  private static String oneLine(String m) {
    if (m == null || m.isBlank()) {
      return "Bad request";
    }
    return m.replace('\n', ' ').replace('\r', ' ');
  }
}
