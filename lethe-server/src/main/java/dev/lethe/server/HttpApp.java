package dev.lethe.server;

import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.config.CrossSiteConfig;
import dev.lethe.server.config.HttpLimitsConfig;
import dev.lethe.server.config.OperationsConfig;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.http.CrossSiteRequests;
import dev.lethe.server.http.ErrorMapper;
import dev.lethe.server.http.IcebergJson;
import dev.lethe.server.http.JsonErrorHandler;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.http.RequestLogLine;
import dev.lethe.server.http.ShutdownGate;
import dev.lethe.server.http.UnreadBodyDrain;
import dev.lethe.server.iceberg.IcebergRestRoutes;
import dev.lethe.server.management.CleanupRoutes;
import dev.lethe.server.management.SoftDeleteRoutes;
import dev.lethe.server.store.StoreMetrics;
import dev.lethe.server.store.StoreRoutes;
import dev.lethe.server.store.StoreService;
import io.javalin.Javalin;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jetty.JettyConnectionMetrics;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import io.micrometer.jetty12.server.TimedHandler;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.Map;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.ThreadLimitHandler;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * The Javalin application: Jetty's limits and handlers, the filters every request passes, the
 * routes, and the one error mapper (docs/design/0215-one-http-edge-and-composition-root.md). Built
 * over opened {@link ServerComponents}; started and stopped by {@link LetheServer}.
 */
final class HttpApp {
  /**
   * Jetty's own stop timeout, in ms: the last step of {@link LetheServer#close()}, after its bounded
   * wait for requests in flight (docs/design/0410-operations.md §4), so only a request stuck outside
   * the database can still be running then.
   */
  static final long JETTY_STOP_TIMEOUT_MS = 5_000;

  final Javalin app;
  final ShutdownGate gate;
  /** The one store service the HTTP routes call, shared with the gRPC port (docs/design/0141-grpc-transport.md). */
  final StoreService storeService;

  private HttpApp(Javalin app, ShutdownGate gate, StoreService storeService) {
    this.app = app;
    this.gate = gate;
    this.storeService = storeService;
  }

  /** Builds (does not start) the application over {@code components}; {@code access} guards every route. */
  static HttpApp create(ServerConfig config, ServerComponents components, AccessCheck access) {
    IcebergJson json = new IcebergJson();
    ErrorMapper errors = new ErrorMapper(json);
    IcebergRestRoutes iceberg = new IcebergRestRoutes(components.catalogs, json, ServerComponents.CATALOG, access,
        components.drops, components.pageTokens, components.registry);
    CleanupRoutes cleanups = new CleanupRoutes(components.catalogs, components.cleanupJobs, components.jobControl, components.jobEndings, access,
        components.pageTokens);
    SoftDeleteRoutes softDeleteRoutes = new SoftDeleteRoutes(components.catalogs, components.softDeletes, access,
        components.drops, components.pageTokens, components.purgePreviews);
    dev.lethe.server.management.ProtectionRoutes protectionRoutes =
        new dev.lethe.server.management.ProtectionRoutes(components.catalogs, components.protections, access);
    dev.lethe.server.management.HoldRoutes holdRoutes =
        new dev.lethe.server.management.HoldRoutes(components.catalogs, components.holds, access);
    // the console's Overview in one read per catalog (docs/design/0450-catalog-summary.md)
    dev.lethe.server.management.SummaryRoutes summaryRoutes =
        new dev.lethe.server.management.SummaryRoutes(components.catalogs, components.summaries, access);
    StoreService storeService = new StoreService(components.store, access);
    dev.lethe.server.console.ConsoleRoutes console = new dev.lethe.server.console.ConsoleRoutes();
    StoreMetrics storeMetrics = new StoreMetrics(components.registry);
    StoreRoutes storeRoutes = new StoreRoutes(storeService, components.pageTokens, storeMetrics);
    GracefulHandler graceful = new GracefulHandler();
    ShutdownGate gate = new ShutdownGate(graceful::getCurrentRequestCount);
    long idleTimeoutMs = HttpLimitsConfig.idleTimeoutMs(config.properties());
    int requestsPerClient = HttpLimitsConfig.maxRequestsPerClient(config.properties());
    java.util.Set<String> allowedOrigins = CrossSiteConfig.allowedOrigins(config.properties());
    boolean logRequests = OperationsConfig.logRequests(config.properties());
    Javalin app = Javalin.create(c -> {
      c.startup.showJavalinBanner = false;
      c.http.maxRequestSize = config.maxRequestBytes();
      // names may legally carry encoded characters such as %2F; the catalog answers 400 with JSON
      c.jetty.modifyHttpConfiguration(http -> {
        http.setUriCompliance(UriCompliance.LEGACY);
        http.setIdleTimeout(idleTimeoutMs);
      });
      // a body refused unread (413, 400 on a path, 401, 403) is drained, up to twice the limit, so
      // the client reads the answer instead of a reset (docs/design/0117-answering-refused-bodies.md)
      long drainLimit = config.maxRequestBytes() > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * config.maxRequestBytes();
      c.jetty.modifyServletContextHandler(handler -> handler.addFilter(
          new org.eclipse.jetty.ee10.servlet.FilterHolder(new UnreadBodyDrain(drainLimit)), "/*",
          java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST)));
      // errors Jetty answers itself (unparsable URI, URI or headers too long) are JSON too
      c.jetty.modifyServer(server -> {
        server.setErrorHandler(new JsonErrorHandler(errors));
        // counts requests in flight for close(); Jetty's own stop comes last and is short
        server.setHandler(graceful);
        // one client address is served at most this many requests at once; the rest wait
        // without a thread, so a slow client cannot take every thread from the others
        // (docs/design/0420-a-slow-client-holds-nothing-of-the-others.md)
        ThreadLimitHandler perClient = new ThreadLimitHandler();
        perClient.setThreadLimit(requestsPerClient);
        // every request Jetty answers, Javalin's and Jetty's own errors alike, is timed by method,
        // status and outcome (jetty_server_requests_seconds, docs/design/0433-observability.md)
        TimedHandler timed = new TimedHandler(components.registry, Tags.empty());
        graceful.setHandler(timed);
        timed.setHandler(perClient);
        new JettyServerThreadPoolMetrics(server.getThreadPool(), Tags.empty()).bindTo(components.registry);
        server.setStopTimeout(JETTY_STOP_TIMEOUT_MS);
        if (logRequests) {
          server.setRequestLog(new RequestLogLine(access));
        }
        // headers or a body that stop arriving end the connection after this long; the connector
        // exists only once Javalin starts the server
        server.addEventListener(new LifeCycle.Listener() {
          @Override
          public void lifeCycleStarting(LifeCycle event) {
            for (Connector connector : server.getConnectors()) {
              if (connector instanceof AbstractConnector a) {
                a.setIdleTimeout(idleTimeoutMs);
              }
            }
            // connections open, bytes in and out, messages (jetty_connections_*, jetty_bytes_*)
            JettyConnectionMetrics.addToAllConnectors(server, components.registry, Tags.empty());
          }
        });
      });
      // runs once the answer is final, error mapping included (docs/design/0433-observability.md)
      c.requestLogger.http((ctx, ms) -> {
        if (ctx.path().startsWith(StoreRoutes.ROOT)) {
          storeMetrics.request(routeOf(ctx), ctx.method().name(), ctx.statusCode());
        }
      });
      // liveness: the process answers. Readiness: it can serve now, check by check, 200 or 503; both
      // without a token, for load balancers (docs/design/0430-health-that-tells-the-truth.md)
      ReadRoutes.getAndHead(c.routes, "/healthz", ctx -> ctx.json(Map.of("status", "ok")));
      ReadRoutes.getAndHead(c.routes, "/readyz", ctx -> {
        Readiness.Report report = components.readiness.check();
        if (!report.ready()) {
          ctx.header("Retry-After", Integer.toString(ErrorMapper.RETRY_AFTER_SECONDS));
        }
        ctx.status(report.ready() ? 200 : 503).json(report.body());
      });
      // every answer, refusals included, is never sniffed as markup; a management answer is never
      // stored by a browser or a proxy (docs/design/0449-operator-console.md §1)
      c.routes.before(HttpApp::answerHeaders);
      // while the server stops every request is 503, /healthz included (docs/design/0410-operations.md §4)
      c.routes.before(gate::filter);
      // a browser page of another origin can neither write nor read, nor send a non-JSON body
      // (docs/design/0421-no-cross-site-writes.md)
      c.routes.before(ctx -> crossSite(ctx, allowedOrigins, access != AccessCheck.ALLOW_ALL));
      // two credentials are 400 on every route, before any route reads one (docs/design/0410-operations.md §1)
      c.routes.before(AuthorizationHeader::of);
      c.routes.before(ctx -> rejectOversizedBody(ctx, config.maxRequestBytes()));
      iceberg.register(c.routes);
      cleanups.register(c.routes);
      softDeleteRoutes.register(c.routes);
      protectionRoutes.register(c.routes);
      holdRoutes.register(c.routes);
      summaryRoutes.register(c.routes);
      storeRoutes.register(c.routes);
      // the operator console and the one route it needs to know its caller (docs/design/0449-operator-console.md)
      new dev.lethe.server.management.WhoAmIRoutes(access, components.catalogs.metalake(),
          java.util.List.of(ServerComponents.CATALOG)).register(c.routes);
      console.register(c.routes);
      boolean metricsPublic = OperationsConfig.metricsPublic(config.properties());
      ReadRoutes.getAndHead(c.routes, "/metrics", ctx -> {
        if (!metricsPublic) {
          access.checkMetrics(AuthorizationHeader.of(ctx));
        }
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(components.registry.scrape());
      });
      errors.register(c.routes);
    });
    return new HttpApp(app, gate, storeService);
  }

  /** The route template that answered, e.g. {@code /store/v1/records/{ns}/{col}/{id}}; {@code unmatched} when none did. */
  static String routeOf(Context ctx) {
    try {
      return ctx.endpoint().path;
    } catch (RuntimeException e) {
      return "unmatched"; // a 404 of no route, or a request refused by a filter before routing
    }
  }

  private static void answerHeaders(Context ctx) {
    ctx.header("X-Content-Type-Options", "nosniff");
    if (ctx.path().startsWith("/api/")) {
      ctx.header("Cache-Control", "no-store");
    }
  }

  private static void crossSite(Context ctx, java.util.Set<String> allowedOrigins, boolean authOn) {
    // the console's own page may call the server only when a token is needed for every call
    // (docs/design/0449-operator-console.md §4)
    String ownOrigin = authOn ? CrossSiteRequests.ownOrigin(ctx.scheme(), ctx.header("Host")) : null;
    CrossSiteRequests.Verdict verdict = CrossSiteRequests.decide(ctx.method().name(), ctx.path(), ctx.header("Origin"),
        ctx.header("Access-Control-Request-Method"), ctx.header("Content-Type"), allowedOrigins, ownOrigin);
    if (verdict instanceof CrossSiteRequests.Refuse refuse) {
      throw new HttpResponseException(refuse.status(), refuse.message());
    }
    if (verdict instanceof CrossSiteRequests.Preflight preflight) {
      ctx.header("Access-Control-Allow-Origin", preflight.origin());
      ctx.header("Vary", "Origin");
      ctx.header("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE");
      String asked = ctx.header("Access-Control-Request-Headers");
      ctx.header("Access-Control-Allow-Headers", asked == null || asked.isBlank() ? "Authorization, Content-Type" : asked);
      ctx.header("Access-Control-Max-Age", "600");
      ctx.status(204);
      ctx.skipRemainingHandlers();
      return;
    }
    String origin = ((CrossSiteRequests.Serve) verdict).allowedOrigin();
    if (origin != null) {
      ctx.header("Access-Control-Allow-Origin", origin);
      ctx.header("Vary", "Origin");
    }
  }

  private static void rejectOversizedBody(Context ctx, long max) {
    long length = ctx.req().getContentLengthLong();
    if (length > max) {
      throw new HttpResponseException(413, "Request body too large: " + length + " bytes, limit is " + max + " bytes");
    }
  }
}
