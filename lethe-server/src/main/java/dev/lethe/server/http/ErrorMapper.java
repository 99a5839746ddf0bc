package dev.lethe.server.http;

import dev.lethe.server.auth.AuthDecision;
import dev.lethe.store.core.format.CorruptRecordException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import dev.lethe.catalog.entity.DatabaseUnavailable;
import dev.lethe.catalog.entity.HeldException;
import dev.lethe.catalog.entity.ProtectedException;
import dev.lethe.catalog.jobs.CleanupJobStateException;
import dev.lethe.catalog.softdelete.JobRescueRefusedException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.eclipse.jetty.http.HttpStatus;
import dev.lethe.catalog.io.UnreadableMetadataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's one exception → (status, type, message) table and its two renderers
 * (docs/design/0215-one-http-edge-and-composition-root.md). Registered once, by {@link #register},
 * for every exception a filter or a route throws and for the 404/405 of no route.
 *
 * <p>{@link #answer} is a pure function of the surface, the failure and whether the server stops;
 * {@link #write} renders an {@link Answer} in the surface's shape: Iceberg's {@link ErrorResponse}
 * under {@code /iceberg} (and any path outside {@code /api/}, {@code /store/} and the operational
 * routes), {@code {code, type, message}} plus {@link Answer#extra()} on those
 * (docs/design/0437-one-error-shape.md). A 401 always carries {@code WWW-Authenticate}.
 */
public final class ErrorMapper {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);

  /** Message of every 500 that hides its cause. */
  public static final String INTERNAL = "Internal server error; see the server log";

  /** Which error vocabulary and body shape a path speaks; chosen once by its prefix. */
  public enum Surface {
    /** Iceberg REST ({@code /iceberg/…}) and any path outside the trees below. */
    ICEBERG,
    /**
     * The management routes under {@code /api/} and the operational routes ({@code /metrics},
     * {@code /healthz}, {@code /readyz}) and the console's files under {@code /ui}: the non-Iceberg
     * shape (docs/design/0437-one-error-shape.md).
     */
    API,
    /** The store routes under {@code /store/}. */
    STORE;

    /** The surface of a request path (never null). */
    public static Surface of(String path) {
      if (path.startsWith("/store/")) {
        return STORE;
      }
      return path.startsWith("/api/") || OPERATIONAL.contains(path) || path.equals("/ui") || path.startsWith("/ui/") ? API : ICEBERG;
    }

    private static final java.util.Set<String> OPERATIONAL = java.util.Set.of("/metrics", "/healthz", "/readyz");
  }

  /**
   * Seconds a client is told to wait ({@code Retry-After}) when the catalog database is
   * unavailable (docs/design/0430-health-that-tells-the-truth.md).
   */
  public static final int RETRY_AFTER_SECONDS = 5;

  /** What the server logs for an answer. */
  public enum Log { NONE, FAILED, MESSAGE, STORE_FAILED, UNAVAILABLE }

  /**
   * One answer: HTTP status, error {@code type}, one-line message, fields after {@code message}
   * (only in the {@code {code, type, message}} shape; never null), what to log, whether the
   * connection closes after it, and the {@code Retry-After} seconds (0: no header).
   */
  public record Answer(int status, String type, String message, Map<String, Object> extra, Log log, boolean close,
      int retryAfterSeconds) {
    Answer(int status, String type, String message) {
      this(status, type, message, Map.of(), Log.NONE, false, 0);
    }

    Answer logging(Log how) {
      return new Answer(status, type, message, extra, how, close, retryAfterSeconds);
    }
  }

  /**
   * One row: the failures it matches and, per surface, the answer (null: the row does not apply
   * there and the next one is tried).
   */
  private record Row(Predicate<Throwable> failure, Function<Throwable, Answer> iceberg,
      Function<Throwable, Answer> api, Function<Throwable, Answer> store) {
    Row(Class<? extends Throwable> failure, Function<Throwable, Answer> iceberg, Function<Throwable, Answer> api,
        Function<Throwable, Answer> store) {
      this(failure::isInstance, iceberg, api, store);
    }

    Function<Throwable, Answer> on(Surface surface) {
      return switch (surface) {
        case ICEBERG -> iceberg;
        case API -> api;
        case STORE -> store;
      };
    }
  }

  /** The table, first match wins; anything unmatched is a 500 (or a 503 while stopping). */
  private static final List<Row> TABLE = List.of(
      everywhere(ApiException.class, e -> {
        ApiException a = (ApiException) e;
        return new Answer(a.status(), a.type(), a.getMessage());
      }),
      new Row(RequestBody.NotRead.class, ErrorMapper::edge, ErrorMapper::edge, e -> {
        HttpResponseException h = (HttpResponseException) e;
        return new Answer(h.getStatus(), h.getStatus() == 408 ? "RequestTimeout" : "BadRequest", oneLine(h.getMessage()));
      }),
      everywhere(HttpResponseException.class, ErrorMapper::edge),
      // the catalog database cannot be used now, whatever the request was: 503, never a generic 500
      // (docs/design/0430-health-that-tells-the-truth.md)
      new Row(DatabaseUnavailable::is, ErrorMapper::databaseUnavailable, ErrorMapper::databaseUnavailable, null),
      new Row(NotAuthorizedException.class, named(401), named(401), store(401, "NotAuthorized")),
      new Row(ForbiddenException.class, named(403), named(403), store(403, "Forbidden")),
      catalog(NoSuchNamespaceException.class, 404),
      catalog(NoSuchTableException.class, 404),
      catalog(NoSuchViewException.class, 404),
      catalog(NotFoundException.class, 404),
      catalog(AlreadyExistsException.class, 409),
      catalog(CommitFailedException.class, 409),
      catalog(NamespaceNotEmptyException.class, 409),
      // an operator's job action in the wrong state names the state (docs/design/0440-job-control.md)
      new Row(CleanupJobStateException.class, named(409), e -> new Answer(409, "CleanupJobStateException",
          e.getMessage(), Map.of("state", ((CleanupJobStateException) e).state().name()), Log.NONE, false, 0), null),
      // a rescue refused for the table's files or namespace (docs/design/0443-abandon-and-rescue.md)
      catalog(JobRescueRefusedException.class, 409),
      // a drop refused by a protection names it and who set it (docs/design/0441-drop-protection.md)
      new Row(ProtectedException.class, named(409), e -> new Answer(409, "ProtectedException", e.getMessage(),
          Map.of("protection", ProtectionView.of(((ProtectedException) e).protection())), Log.NONE, false, 0), null),
      // a purge refused by a legal hold names it, who placed it and why (docs/design/0444-legal-holds.md)
      new Row(HeldException.class, named(409), e -> new Answer(409, "HeldException", e.getMessage(),
          Map.of("hold", HoldView.of(((HeldException) e).hold())), Log.NONE, false, 0), null),
      catalog(UnprocessableEntityException.class, 422),
      catalog(UnsupportedOperationException.class, 406),
      new Row(IllegalArgumentException.class, named(400),
          e -> new Answer(400, "IllegalArgumentException", e.getMessage()), store(400, "BadRequest")),
      catalog(ValidationException.class, 400),
      // the server's storage failed, not the request (docs/design/0216-unreadable-metadata.md)
      new Row(UnreadableMetadataException.class, e -> named(500).apply(e).logging(Log.MESSAGE),
          e -> named(500).apply(e).logging(Log.MESSAGE), null),
      // the commit may have happened: the client must know which failure this was
      new Row(CommitStateUnknownException.class, ErrorMapper::unknownCommit, ErrorMapper::unknownCommit, null),
      new Row(CorruptRecordException.class, null, null, e -> {
        Map<String, Object> extra = new LinkedHashMap<>();
        ((CorruptRecordException) e).key().ifPresent(k -> extra.put("key", k.toString()));
        return new Answer(500, "CorruptRecord", oneLine(e.getMessage()), extra, Log.MESSAGE, false, 0);
      }),
      new Row(UncheckedIOException.class, null, null, e -> {
        String cause = e.getCause() == null ? "" : ": " + e.getCause().getMessage();
        return new Answer(503, "StoreUnavailable", oneLine(e.getMessage() + cause)).logging(Log.STORE_FAILED);
      }));

  private final IcebergJson json;

  /** @param json writes Iceberg's {@link ErrorResponse} */
  public ErrorMapper(IcebergJson json) {
    this.json = json;
  }

  /**
   * The answer to {@code failure} on {@code surface}: the first row of the table that matches;
   * unmatched, a 500 {@code InternalServerError} with {@link #INTERNAL}. A server error (status
   * 500 or more) of anything but an {@link HttpResponseException} while the server stops is the
   * 503 of {@link ShutdownGate#MESSAGE} instead (docs/design/0410-operations.md §4).
   */
  public static Answer answer(Surface surface, Throwable failure, boolean stopping) {
    Answer answer = null;
    for (Row row : TABLE) {
      Function<Throwable, Answer> on = row.on(surface);
      if (on != null && row.failure().test(failure)) {
        answer = on.apply(failure);
        break;
      }
    }
    if (answer == null) {
      answer = new Answer(500, "InternalServerError", INTERNAL).logging(Log.FAILED);
    }
    if (stopping && answer.status() >= 500 && !(failure instanceof HttpResponseException)) {
      return new Answer(503, surface == Surface.STORE ? "ServiceUnavailable" : "ServiceUnavailableException",
          ShutdownGate.MESSAGE, Map.of(), Log.NONE, true, 0);
    }
    return answer;
  }

  /** The answer to a request no route took: {@code status} 404 or 405. */
  public static Answer noRoute(int status, String method, String path) {
    return status == 404
        ? new Answer(404, edgeType(404), "No route for " + method + " " + path)
        : new Answer(405, edgeType(405), "Method not allowed: " + method + " " + path);
  }

  /**
   * The body of an error Jetty answers itself, before any route runs (an unparsable request line,
   * a URI or headers over the limits), in the shape of {@code path}'s surface
   * (docs/design/0437-one-error-shape.md): {@code {code, type, message}} under {@code /api/} and
   * {@code /store/}, Iceberg's {@link ErrorResponse} elsewhere and when the path is unknown (null).
   * {@code message} is as Jetty gave it (null or its reason phrase when it has no more to say).
   */
  public byte[] jettyBody(int code, String message, String path) {
    String reason = HttpStatus.getMessage(code);
    if (code == 400 && (message == null || message.isBlank() || message.equals(reason))) {
      message = "the request line or headers cannot be parsed (e.g. %00 or a bad %-escape in the path)";
    }
    String text = message == null || message.isBlank() || message.equals(reason)
        ? "HTTP " + code + " " + reason
        : "HTTP " + code + " " + reason + ": " + message;
    String type = code == 404 ? "NotFoundException" : code >= 500 ? "InternalServerError" : "BadRequestException";
    if (path != null && Surface.of(path) != Surface.ICEBERG) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("code", code);
      body.put("type", type);
      body.put("message", oneLine(text));
      return json.write(body);
    }
    return json.write(ErrorResponse.builder().responseCode(code).withType(type).withMessage(text).build());
  }

  /** Registers the table for every exception and the 404/405 of no route. */
  public void register(RoutesConfig routes) {
    // Javalin answers an HttpResponseException itself unless a handler names that class
    routes.exception(HttpResponseException.class, (e, ctx) -> handle(ctx, e));
    routes.exception(Exception.class, (e, ctx) -> handle(ctx, e));
    for (int status : new int[] {404, 405}) {
      routes.error(status, ctx -> {
        if (ctx.resultInputStream() == null) { // a route's own 404 (an absent record) keeps its body
          write(ctx, noRoute(status, ctx.method().name(), ctx.path()));
        }
      });
    }
  }

  private void handle(Context ctx, Exception e) {
    boolean stopping = ShutdownGate.stopping(ctx);
    Answer answer = answer(Surface.of(ctx.path()), e, stopping);
    switch (answer.log()) {
      case FAILED -> LOG.error("Request {} {} failed", ctx.method(), ctx.path(), e);
      case MESSAGE -> LOG.error("Request {} {}: {}", ctx.method(), ctx.path(), e.getMessage());
      case STORE_FAILED -> LOG.error("Request {} {}: the store failed", ctx.method(), ctx.path(), e);
      case UNAVAILABLE -> LOG.warn("Request {} {} answered 503: {}", ctx.method(), ctx.path(), answer.message());
      case NONE -> {
        if (answer.close()) {
          // the stop cancelled this request's work: not a bug, no stack trace
          LOG.warn("Request {} {} answered 503: the server is stopping", ctx.method(), ctx.path());
        }
      }
    }
    if (answer.close()) {
      ctx.header("Connection", "close");
    }
    if (answer.retryAfterSeconds() > 0) {
      ctx.header("Retry-After", Integer.toString(answer.retryAfterSeconds()));
    }
    write(ctx, answer);
  }

  /** Writes {@code answer} in the shape of the request path's surface. */
  public void write(Context ctx, Answer answer) {
    if (answer.status() == 401) {
      ctx.header("WWW-Authenticate", AuthDecision.Unauthenticated.CHALLENGE);
    }
    if (Surface.of(ctx.path()) == Surface.ICEBERG) {
      ErrorResponse body = ErrorResponse.builder().responseCode(answer.status()).withType(answer.type())
          .withMessage(answer.message()).build();
      ctx.status(answer.status()).contentType("application/json").result(json.write(body));
    } else {
      plain(ctx, answer.status(), answer.type(), answer.message(), answer.extra());
    }
  }

  /** {@link #plain(Context, int, String, String, Map)} with no more fields. */
  public static void plain(Context ctx, int code, String type, String message) {
    plain(ctx, code, type, message, Map.of());
  }

  /**
   * Writes {@code {code, type, message}} and then {@code extra}'s fields with status {@code code}
   * (and the bearer challenge with a 401): the {@code /api} and {@code /store} error shape, also
   * for a store outcome that is not a failure (an absent record's 404, a 412).
   */
  public static void plain(Context ctx, int code, String type, String message, Map<String, Object> extra) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("code", code);
    body.put("type", type);
    body.put("message", message);
    body.putAll(extra);
    if (code == 401) {
      ctx.header("WWW-Authenticate", AuthDecision.Unauthenticated.CHALLENGE);
    }
    ctx.status(code).json(body);
  }

  /** The type of an HTTP-level refusal (a filter's, Javalin's, a body's) by its status. */
  static String edgeType(int status) {
    return switch (status) {
      case 404 -> "NotFoundException";
      case 405 -> "MethodNotAllowed";
      case 403 -> "ForbiddenException";
      case 413 -> "RequestTooLarge";
      case 415 -> "UnsupportedMediaType";
      case 408 -> "RequestTimeout";
      case 503 -> "ServiceUnavailableException";
      default -> status >= 500 ? "InternalServerError" : "BadRequestException";
    };
  }

  private static Answer edge(Throwable e) {
    HttpResponseException h = (HttpResponseException) e;
    int status = h.getStatus();
    String text = h.getMessage() == null || h.getMessage().isEmpty() ? "HTTP " + status : h.getMessage();
    return new Answer(status, edgeType(status), status == 413 ? BodyLimitMessage.of(text) : text);
  }

  private static Row everywhere(Class<? extends Throwable> failure, Function<Throwable, Answer> answer) {
    return new Row(failure, answer, answer, answer);
  }

  /** A catalog failure: Iceberg's status, its class name as the type, its message; a 500 on the store. */
  private static Row catalog(Class<? extends Throwable> failure, int status) {
    return new Row(failure, named(status), named(status), null);
  }

  private static Function<Throwable, Answer> named(int status) {
    return e -> new Answer(status, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
  }

  private static Answer databaseUnavailable(Throwable e) {
    return new Answer(503, "ServiceUnavailableException", DatabaseUnavailable.message(e).orElseThrow(), Map.of(),
        Log.UNAVAILABLE, false, RETRY_AFTER_SECONDS);
  }

  private static Answer unknownCommit(Throwable e) {
    return named(500).apply(e).logging(Log.FAILED);
  }

  private static Function<Throwable, Answer> store(int status, String type) {
    return e -> new Answer(status, type, oneLine(e.getMessage()));
  }

  private static String oneLine(String m) {
    if (m == null || m.isBlank()) {
      return "Bad request";
    }
    return m.replace('\n', ' ').replace('\r', ' ');
  }
}
