package dev.lethe.server;

import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.purge.AsyncPurgeService;
import dev.lethe.catalog.purge.AsyncPurgeSettings;
import dev.lethe.catalog.purge.CleanupJob;
import dev.lethe.catalog.purge.CredentialCipher;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.LoggingPurgeEventListener;
import dev.lethe.catalog.purge.PurgeEvent;
import dev.lethe.catalog.purge.PurgeEventListener;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.ClaimBackfill;
import dev.lethe.catalog.softdelete.SoftDeleteExpiry;
import dev.lethe.catalog.softdelete.SoftDeletes;
import dev.lethe.server.config.AsyncPurgeConfig;
import dev.lethe.server.config.SoftDeleteConfig;
import dev.lethe.server.iceberg.AsyncDrops;
import dev.lethe.server.management.CleanupRoutes;
import dev.lethe.server.management.ManagementResponses;
import dev.lethe.server.management.SoftDeleteRoutes;
import dev.lethe.server.config.StoreConfig;
import dev.lethe.server.store.StoreErrors;
import dev.lethe.server.store.GrpcStoreServer;
import dev.lethe.server.store.StoreRoutes;
import dev.lethe.server.store.StoreService;
import dev.lethe.server.store.StoreSettings;
import dev.lethe.store.core.Store;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.iceberg.catalog.TableIdentifier;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.ServerSecrets;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.server.auth.AuthDecision;
import dev.lethe.server.auth.AuthFile;
import dev.lethe.server.auth.AuthFileLoader;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.auth.Authorizer;
import dev.lethe.server.auth.InvalidAuthFileException;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.CrossSiteConfig;
import dev.lethe.server.config.HttpLimitsConfig;
import dev.lethe.server.config.OperationsConfig;
import dev.lethe.server.config.ServerConfigLoader;
import dev.lethe.server.iceberg.AccessCheck;
import dev.lethe.server.iceberg.AuthorizerAccessCheck;
import dev.lethe.server.iceberg.IcebergErrors;
import dev.lethe.server.iceberg.IcebergJson;
import dev.lethe.server.iceberg.IcebergRestRoutes;
import dev.lethe.server.iceberg.TableDrops;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.ThreadLimitHandler;
import org.eclipse.jetty.util.component.LifeCycle;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.eclipse.jetty.http.UriCompliance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lethe HTTP server: one process serving the catalog and the store daemon.
 *
 * <p>On start it opens (and migrates) the catalog database, creates metalake {@code default} with
 * catalog {@code main} if missing, serves the Iceberg REST routes under {@code /iceberg/v1/}, and
 * serves the store named by {@code lethe.store.uri} under {@code /store/v1/} ({@link StoreRoutes}).
 * Every error is JSON: Iceberg's {@link ErrorResponse} shape, never an HTML page.
 */
public final class LetheServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  /** Metalake created and served on start. */
  public static final String DEFAULT_METALAKE = "default";
  /** Catalog created on first start; the default {@code warehouse}. */
  public static final String DEFAULT_CATALOG = "main";

  /**
   * Request attribute set by a handler that wrote its own error body, so the 404/405 fallbacks
   * leave it alone (management routes write {@code {code, type, message}}).
   */
  public static final String ERROR_WRITTEN = "lethe.error-written";
  /**
   * Jetty's own stop timeout, in ms: the last step of {@link #close()}, after its bounded wait for
   * requests in flight (docs/design/0410-operations.md §4), so only a request stuck outside the
   * database can still be running then.
   */
  static final long JETTY_STOP_TIMEOUT_MS = 5_000;
  /**
   * How long {@link #close()} waits, after cancelling the database statements of requests that
   * outlived the shutdown timeout, for them to be answered 503, in ms (and as long again after
   * closing the pools under any still running).
   */
  static final long ABORT_GRACE_MS = 5_000;

  private final Javalin app;
  private final CatalogDatabase database;
  private final IcebergCatalogs catalogs;
  private final String host;
  private final AsyncPurgeService purge;
  private final SoftDeleteExpiry expiry;
  private final DeletePool deletes;
  private final Store store;
  private final ShutdownGate gate;
  private final long shutdownTimeoutMs;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final PageTokenKey pageTokenKey;
  /** The store's gRPC port, null when off; set once, right after start. */
  private volatile GrpcStoreServer grpc;

  private LetheServer(Javalin app, CatalogDatabase database, IcebergCatalogs catalogs, String host, AsyncPurgeService purge,
      SoftDeleteExpiry expiry, DeletePool deletes, Store store, ShutdownGate gate, long shutdownTimeoutMs,
      PageTokenKey pageTokenKey) {
    this.pageTokenKey = pageTokenKey;
    this.app = app;
    this.gate = gate;
    this.shutdownTimeoutMs = shutdownTimeoutMs;
    this.store = store;
    this.deletes = deletes;
    this.purge = purge;
    this.expiry = expiry;
    this.database = database;
    this.catalogs = catalogs;
    this.host = host;
  }

  /**
   * Starts the server and returns once it is listening. Auth is on when {@link
   * ServerConfig#authFile()} names a principals file (docs/auth.md), off otherwise.
   *
   * @throws ConfigException if the auth file is invalid (the message names {@code lethe.auth.file})
   */
  public static LetheServer start(ServerConfig config) {
    AccessCheck access = AccessCheck.ALLOW_ALL;
    // logged once the server started: a start refused on its paths prints its one error line alone
    // (docs/design/0410-operations.md §3)
    Runnable announce;
    if (config.authFile() != null) {
      try {
        AuthFile file = new AuthFileLoader().load(config.authFile());
        access = new AuthorizerAccessCheck(Authorizer.of(file));
        // the operator sees from the log alone that the file took effect, and which one
        announce = () -> LOG.info("Auth is on: {} principal(s) from {} ({})", file.principals().size(),
            config.authFile(), ConfigKeys.AUTH_FILE);
      } catch (InvalidAuthFileException e) {
        throw new ConfigException("Invalid " + ConfigKeys.AUTH_FILE + ": " + e.getMessage());
      }
    } else if (!isLoopback(config.host())) {
      announce = () -> LOG.warn("Auth is off ({} not set) and the server binds {}: anyone who can reach it can "
          + "change the catalog", ConfigKeys.AUTH_FILE, config.host());
    } else {
      announce = () -> LOG.info("Auth is off ({} not set): every request is allowed; the server binds {} only",
          ConfigKeys.AUTH_FILE, config.host());
    }
    LetheServer server = start(config, access);
    announce.run();
    return server;
  }

  /** FileIO and catalog properties of {@code main} at its creation: keys under {@link ConfigKeys#CATALOG_PROPERTIES}. */
  private static Map<String, String> catalogProperties(ServerConfig config) {
    Map<String, String> props = new java.util.TreeMap<>();
    config.properties().forEach((k, v) -> {
      if (k.startsWith(ConfigKeys.CATALOG_PROPERTIES) && k.length() > ConfigKeys.CATALOG_PROPERTIES.length()) {
        props.put(k.substring(ConfigKeys.CATALOG_PROPERTIES.length()), v);
      }
    });
    return props;
  }

  private static boolean isLoopback(String host) {
    return host.equals("127.0.0.1") || host.equals("::1") || host.equals("localhost");
  }

  /**
   * Starts the server and returns once it is listening.
   *
   * @param access the access check run before every Iceberg route
   * @throws RuntimeException if the database cannot be opened or migrated, or the port is taken
   */
  public static LetheServer start(ServerConfig config, AccessCheck access) {
    Clock clock = Clock.systemUTC();
    // before anything is opened or logged: a path the server cannot write stops start-up (docs/design/0410-operations.md §3)
    WritablePaths.check(config);
    CatalogDatabase database = CatalogDatabase.open(new DatabaseSettings(
        config.effectiveJdbcUrl(), config.jdbcUser(), config.jdbcPassword(), config.jdbcPoolSize()));
    AsyncPurgeSettings purgeSettings;
    try {
      purgeSettings = AsyncPurgeConfig.settings(config.properties());
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
    // one server-wide delete pool: the synchronous purge and the async workers share it (docs/design/0201-cleanup-jobs.md §5)
    DeletePool deletes = DeletePool.of(purgeSettings);
    // the synchronous purge runs on the async purge's executor, built below before the first request
    AtomicReference<AsyncPurgeService> purgeRef = new AtomicReference<>();
    IcebergCatalogs catalogs = new IcebergCatalogs(database, DEFAULT_METALAKE, clock, () -> UUID.randomUUID().toString(),
        (catalog, id, principal) -> purgeRef.get().purgeTable(catalog, id, principal));
    Javalin app;
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    AsyncPurgeService purge = null;
    SoftDeleteExpiry expiry = null;
    Store store = null;
    ShutdownGate gate;
    StoreService storeService;
    GrpcStoreServer grpc = null;
    PageTokenKey pageTokens;
    StoreSettings storeSettings;
    try {
      storeSettings = StoreConfig.settings(config.properties(), config.dataDir());
      store = storeSettings.open(clock);
    } catch (RuntimeException e) {
      deletes.close();
      catalogs.close();
      database.close();
      throw e;
    }
    try {
      String initialAllowed = catalogProperties(config).get(AllowedLocations.PROPERTY);
      if (initialAllowed != null) {
        try {
          AllowedLocations.of("/", Map.of(AllowedLocations.PROPERTY, initialAllowed)); // checked before it is stored
        } catch (IllegalArgumentException e) {
          throw new ConfigException("Invalid " + ConfigKeys.CATALOG_PROPERTIES + AllowedLocations.PROPERTY + ": " + e.getMessage());
        }
      }
      try {
        catalogs.ensureCatalog(DEFAULT_CATALOG, config.effectiveWarehouse(), catalogProperties(config));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("Invalid " + ConfigKeys.WAREHOUSE + ": " + e.getMessage());
      }
      String allowed = ServerConfigLoader.allowedLocations(config.properties());
      if (allowed != null) {
        catalogs.setCatalogProperty(DEFAULT_CATALOG, AllowedLocations.PROPERTY, allowed.isEmpty() ? null : allowed);
      }
      try {
        catalogs.catalog(DEFAULT_CATALOG); // opened now, so a warehouse or allowed location that does not parse stops start-up
      } catch (IllegalArgumentException e) {
        throw new ConfigException("Invalid allowed locations of catalog " + DEFAULT_CATALOG + " (" + ConfigKeys.WAREHOUSE
            + ", " + ConfigKeys.ALLOWED_LOCATIONS + " or " + ConfigKeys.CATALOG_PROPERTIES + AllowedLocations.PROPERTY
            + "): " + e.getMessage());
      }
      // the warehouse main really has (set on its first start), when it is local
      WritablePaths.localWarehouse(catalogs.catalog(DEFAULT_CATALOG).map(c -> c.row().warehouse()).orElse(""))
          .ifPresent(dir -> WritablePaths.probe(new WritablePaths.Target(
              "warehouse of catalog " + DEFAULT_CATALOG + " (" + ConfigKeys.WAREHOUSE + ")", dir, false)));
      // rows older than location claims get theirs before the first request (docs/design/0002)
      new ClaimBackfill(database, new FileIOFactory(), clock).run();
      IcebergJson json = new IcebergJson();
      CredentialCipher cipher = CredentialCipher.loadOrCreate(AsyncPurgeConfig.encryptionKey(config.properties()),
          config.dataDir().resolve("purge.key"));
      // a succeeded cleanup job lets the expiry timer finalize its deletion record at once
      AtomicReference<SoftDeleteExpiry> expiryRef = new AtomicReference<>();
      PurgeEventListener logging = new LoggingPurgeEventListener();
      PurgeEventListener listener = event -> {
        logging.onEvent(event);
        SoftDeleteExpiry timer = expiryRef.get();
        if (event instanceof PurgeEvent.PurgeCompleted && timer != null) {
          timer.wakeUp();
        }
      };
      purge = new AsyncPurgeService(database, DEFAULT_METALAKE, purgeSettings, cipher, registry, listener, clock, deletes);
      AsyncPurgeService asyncPurge = purge;
      purgeRef.set(asyncPurge);
      SoftDeletes softDeletes = new SoftDeletes(database, DEFAULT_METALAKE, SoftDeleteConfig.settings(config.properties()),
          cipher, new FileIOFactory(), () -> UUID.randomUUID().toString());
      // runs whatever the flag says: existing records still expire when new ones are off (docs/design/0202-soft-deletion.md §7)
      expiry = new SoftDeleteExpiry(softDeletes, asyncPurge::wakeUp);
      expiryRef.set(expiry);
      AsyncDrops asyncDrops = new AsyncDrops() {
        @Override
        public CleanupJob dropTable(CatalogRow catalog, TableIdentifier id, String principal) {
          return asyncPurge.dropTable(catalog, id, principal);
        }

        @Override
        public CleanupJob dropView(CatalogRow catalog, TableIdentifier id, String principal) {
          return asyncPurge.dropView(catalog, id, principal);
        }
      };
      // one drop service (one DropPlanner decision) behind the Iceberg and the management DELETE
      TableDrops drops = new TableDrops(asyncDrops, softDeletes);
      // one key in the catalog database, so every replica on it accepts the others' page tokens
      // (docs/design/0423-signed-page-tokens.md)
      pageTokens = PageTokenKey.of(new ServerSecrets(database, new java.security.SecureRandom(), clock)
          .loadOrCreate(ServerSecrets.PAGE_TOKEN_KEY));
      IcebergRestRoutes iceberg = new IcebergRestRoutes(catalogs, json, DEFAULT_CATALOG, access, asyncDrops, drops,
          pageTokens);
      CleanupRoutes cleanups = new CleanupRoutes(catalogs, database, access, pageTokens);
      SoftDeleteRoutes softDeleteRoutes = new SoftDeleteRoutes(catalogs, softDeletes, access, drops, pageTokens);
      storeService = new StoreService(store, access);
      StoreRoutes storeRoutes = new StoreRoutes(storeService, pageTokens);
      AccessCheck metricsAccess = access;
      GracefulHandler graceful = new GracefulHandler();
      gate = new ShutdownGate(graceful::getCurrentRequestCount);
      ShutdownGate stopGate = gate;
      long idleTimeoutMs = HttpLimitsConfig.idleTimeoutMs(config.properties());
      int requestsPerClient = HttpLimitsConfig.maxRequestsPerClient(config.properties());
      java.util.Set<String> allowedOrigins = CrossSiteConfig.allowedOrigins(config.properties());
      app = Javalin.create(c -> {
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
          server.setErrorHandler(new JsonErrorHandler(json));
          // counts requests in flight for close(); Jetty's own stop comes last and is short
          server.setHandler(graceful);
          // one client address is served at most this many requests at once; the rest wait
          // without a thread, so a slow client cannot take every thread from the others
          // (docs/design/0420-a-slow-client-holds-nothing-of-the-others.md)
          ThreadLimitHandler perClient = new ThreadLimitHandler();
          perClient.setThreadLimit(requestsPerClient);
          graceful.setHandler(perClient);
          server.setStopTimeout(JETTY_STOP_TIMEOUT_MS);
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
            }
          });
        });
        ReadRoutes.getAndHead(c.routes, "/healthz", ctx -> ctx.json(Map.of("status", "ok")));
        // while the server stops every request is 503, /healthz included (docs/design/0410-operations.md §4)
        c.routes.before(stopGate::filter);
        // a browser page of another origin can neither write nor read, nor send a non-JSON body
        // (docs/design/0421-no-cross-site-writes.md)
        c.routes.before(ctx -> crossSite(ctx, allowedOrigins));
        // two credentials are 400 on every route, before any route reads one (docs/design/0410-operations.md §1)
        c.routes.before(AuthorizationHeader::of);
        c.routes.before(ctx -> rejectOversizedBody(ctx, config.maxRequestBytes()));
        iceberg.register(c.routes);
        cleanups.register(c.routes);
        softDeleteRoutes.register(c.routes);
        storeRoutes.register(c.routes);
        boolean metricsPublic = OperationsConfig.metricsPublic(config.properties());
        ReadRoutes.getAndHead(c.routes, "/metrics", ctx -> {
          if (!metricsPublic) {
            metricsAccess.checkMetrics(AuthorizationHeader.of(ctx));
          }
          ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape());
        });
        c.routes.exception(HttpResponseException.class, (e, ctx) -> writeError(ctx, json, e.getStatus(), e, e.getMessage()));
        c.routes.exception(Exception.class, (e, ctx) -> {
          int status = IcebergErrors.statusOf(e);
          if (ShutdownGate.status(ShutdownGate.stopping(ctx), status) != status) {
            // the stop cancelled this request's database work: not a bug, no stack trace
            LOG.warn("Request {} {} answered 503: the server is stopping", ctx.method(), ctx.path());
            ctx.header("Connection", "close");
            writeError(ctx, json, 503, null, ShutdownGate.MESSAGE);
            return;
          }
          if (status == 500) {
            LOG.error("Request {} {} failed", ctx.method(), ctx.path(), e);
          }
          writeError(ctx, json, status, e, null);
        });
        c.routes.error(404, ctx -> {
          if (ctx.attribute(ERROR_WRITTEN) == null) {
            writeError(ctx, json, 404, null, "No route for " + ctx.method() + " " + ctx.path());
          }
        });
        c.routes.error(405, ctx -> {
          if (ctx.attribute(ERROR_WRITTEN) == null) {
            writeError(ctx, json, 405, null, "Method not allowed: " + ctx.method() + " " + ctx.path());
          }
        });
      });
      // the store's gRPC port beside HTTP, over the same StoreService, listening before HTTP
      // answers, so a healthy server serves both (docs/design/0141-grpc-transport.md)
      int grpcPort = GrpcStoreServer.port(config.properties(), config.port());
      grpc = grpcPort < 0 ? null : GrpcStoreServer.start(storeService, config.host(), grpcPort, config.maxRequestBytes());
      app.start(config.host(), config.port());
    } catch (RuntimeException e) {
      if (grpc != null) {
        grpc.close();
      }
      if (expiry != null) {
        expiry.close();
      }
      if (purge != null) {
        purge.close();
      }
      deletes.close();
      catalogs.close();
      closeStore(store);
      database.close();
      throw e;
    }
    LetheServer server = new LetheServer(app, database, catalogs, config.host(), purge, expiry, deletes, store, gate,
        OperationsConfig.shutdownTimeoutMs(config.properties()), pageTokens);
    server.grpc = grpc;
    if (grpc != null) {
      LOG.info("Lethe Store over gRPC at {}", server.grpcStoreUri());
    }
    LOG.info("Lethe Iceberg REST catalog at {} (warehouse={})", server.icebergUri(), DEFAULT_CATALOG);
    LOG.info("Lethe Store at {} (store={}, ancestor cap {})", server.storeUri(), storeSettings.redactedUri(),
        storeSettings.ancestorCap());
    if (store instanceof dev.lethe.store.s3.S3Store s3) {
      // docs/design/0131-qualify-s3-probe.md
      LOG.info(dev.lethe.store.s3.S3Qualify.lastVerdict(s3));
    }
    return server;
  }

  private static void crossSite(Context ctx, java.util.Set<String> allowedOrigins) {
    CrossSiteRequests.Verdict verdict = CrossSiteRequests.decide(ctx.method().name(), ctx.path(), ctx.header("Origin"),
        ctx.header("Access-Control-Request-Method"), ctx.header("Content-Type"), allowedOrigins);
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
      ctx.attribute(ERROR_WRITTEN, Boolean.TRUE);
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

  private static void writeError(Context ctx, IcebergJson json, int status, Throwable failure, String message) {
    ErrorResponse body;
    if (failure == null || failure instanceof HttpResponseException) {
      String type = switch (status) {
        case 404 -> "NotFoundException";
        case 405 -> "MethodNotAllowed";
        case 403 -> "ForbiddenException";
        case 413 -> "RequestTooLarge";
        case 415 -> "UnsupportedMediaType";
        case 408 -> "RequestTimeout";
        case 503 -> "ServiceUnavailableException";
        default -> status >= 500 ? "InternalServerError" : "BadRequestException";
      };
      String text = message == null || message.isEmpty() ? "HTTP " + status : message;
      if (status == 413) {
        text = BodyLimitMessage.of(text);
      }
      if (ctx.path().startsWith(StoreErrors.PREFIX)) {
        // no store route matched (or the body was refused): the store's error shape
        StoreErrors.error(ctx, status, type, text);
        return;
      }
      if (ctx.path().startsWith(ManagementResponses.PREFIX)) {
        // no route matched (or the body was refused) under the management tree: its own error shape
        if (status == 401) {
          ctx.header("WWW-Authenticate", AuthDecision.Unauthenticated.CHALLENGE);
        }
        ManagementResponses.error(ctx, status, type, text);
        return;
      }
      body = ErrorResponse.builder().responseCode(status).withType(type).withMessage(text).build();
    } else {
      body = IcebergErrors.toErrorResponse(failure);
    }
    ctx.attribute(ERROR_WRITTEN, Boolean.TRUE);
    if (status == 401) {
      ctx.header("WWW-Authenticate", AuthDecision.Unauthenticated.CHALLENGE);
    }
    ctx.status(status).contentType("application/json").result(json.write(body));
  }

  /** The port actually bound. */
  public int port() {
    return app.port();
  }

  /** The URI to give an Iceberg REST client, e.g. {@code http://127.0.0.1:9001/iceberg}. */
  public String icebergUri() {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + IcebergRestRoutes.ROOT;
  }

  /** The base URI of the store routes, e.g. {@code http://127.0.0.1:9001/store/v1}. */
  public String storeUri() {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + StoreRoutes.ROOT;
  }

  /**
   * The store's gRPC URI, e.g. {@code grpc://127.0.0.1:9002}, or null when {@code
   * lethe.store.grpc-port} is 0 (off).
   */
  public String grpcStoreUri() {
    GrpcStoreServer g = grpc;
    return g == null ? null : "grpc://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + g.port();
  }

  /** The store served under {@code /store/v1} (for components in the same process and tests). */
  public Store store() {
    return store;
  }

  private static void closeStore(Store store) {
    if (store instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("Cannot close the store: {}", e.toString());
      }
    }
  }

  /** The key this server signs page tokens with (for tests that build a token the server would sign). */
  public PageTokenKey pageTokenKey() {
    return pageTokenKey;
  }

  /** The catalogs served (for management components in the same process). */
  public IcebergCatalogs catalogs() {
    return catalogs;
  }

  /**
   * Stops the server (docs/design/0410-operations.md §4): from now on every new request is answered
   * 503; requests in flight get up to {@code lethe.server.shutdown-timeout-ms} to finish; the
   * database statements of those still running are then cancelled ({@link
   * CatalogDatabase#interrupt()}), so that they are answered 503, within {@value #ABORT_GRACE_MS} ms
   * more (failing that the database and a {@code jdbc:} store are closed under them, for as long
   * again); then HTTP stops and the background work, the catalogs' FileIO, the store and the
   * database pool (which closes H2) are closed. Idempotent; logs one warning line per stage that
   * found requests still running.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    GrpcStoreServer g = grpc;
    try {
      gate.close();
      if (g != null) {
        g.refuseNew();
      }
      drain();
      if (g != null && !g.drain(shutdownTimeoutMs)) {
        LOG.warn("gRPC calls still running {} ms after the stop began; cancelling them", shutdownTimeoutMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (g != null) {
        g.close();
      }
      stopAll();
    }
  }

  private void drain() {
    try {
      if (gate.awaitIdle(shutdownTimeoutMs)) {
        return;
      }
      LOG.warn("{} request(s) still running {} ms after the stop began ({}); cancelling their database statements so"
          + " they are answered 503", gate.inFlight(), shutdownTimeoutMs, ConfigKeys.SHUTDOWN_TIMEOUT_MS);
      database.interrupt();
      if (gate.awaitIdle(ABORT_GRACE_MS)) {
        return;
      }
      // stuck elsewhere (a jdbc: store, a connection that ignores the cancel): close the pools under them
      LOG.warn("{} request(s) still running {} ms later; closing the database and the store under them",
          gate.inFlight(), ABORT_GRACE_MS);
      database.close();
      closeStore(store);
      if (!gate.awaitIdle(ABORT_GRACE_MS)) {
        LOG.warn("{} request(s) still running; stopping HTTP under them", gate.inFlight());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void stopAll() {
    try {
      app.stop();
    } catch (RuntimeException e) {
      // Jetty stopped everything but some connection did not close within its timeout: nothing left to wait for
      LOG.warn("HTTP stopped; a connection was still open after {} ms", JETTY_STOP_TIMEOUT_MS);
    } finally {
      try {
        if (expiry != null) {
          expiry.close();
        }
        if (purge != null) {
          purge.close();
        }
        deletes.close();
        catalogs.close();
      } finally {
        closeStore(store);
        database.close();
      }
    }
  }
}
