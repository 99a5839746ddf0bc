package dev.lethe.server.iceberg;

import dev.lethe.catalog.drop.DropPlanner;
import dev.lethe.catalog.drop.Drops;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.http.DropHeaders;
import dev.lethe.server.http.IcebergJson;
import dev.lethe.server.http.ListingCursor;
import dev.lethe.server.http.PageRequest;
import dev.lethe.server.http.PathSegments;

import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.http.RequestBody;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.server.auth.AuthorizationHeader;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.iceberg.catalog.ImmutableTableCommit;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.rest.CatalogHandlers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RegisterViewRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ListNamespacesResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * The Iceberg REST routes under {@code /iceberg/v1/}. Path segments are decoded by {@link
 * PathSegments} and request bodies read strictly by {@link IcebergJson}
 * (docs/design/0400-strict-request-input.md). Each handler only
 * parses the request with Iceberg's models, checks access, calls Iceberg's {@link CatalogHandlers}
 * (or the catalog) and writes the response; catalog rules live in {@link LetheCatalog}.
 */
public final class IcebergRestRoutes {
  /** Root of the Iceberg REST API; clients use {@code http://host:port/iceberg} as their URI. */
  public static final String ROOT = "/iceberg";

  /** Every endpoint served, as announced by {@code GET /iceberg/v1/config}. */
  public static final List<Endpoint> ENDPOINTS = List.of(
      Endpoint.V1_LIST_NAMESPACES, Endpoint.V1_LOAD_NAMESPACE, Endpoint.V1_NAMESPACE_EXISTS,
      Endpoint.V1_CREATE_NAMESPACE, Endpoint.V1_UPDATE_NAMESPACE, Endpoint.V1_DELETE_NAMESPACE,
      Endpoint.V1_LIST_TABLES, Endpoint.V1_LOAD_TABLE, Endpoint.V1_TABLE_EXISTS, Endpoint.V1_CREATE_TABLE,
      Endpoint.V1_UPDATE_TABLE, Endpoint.V1_DELETE_TABLE, Endpoint.V1_RENAME_TABLE, Endpoint.V1_REGISTER_TABLE,
      Endpoint.V1_REPORT_METRICS, Endpoint.V1_COMMIT_TRANSACTION,
      Endpoint.V1_LIST_VIEWS, Endpoint.V1_LOAD_VIEW, Endpoint.V1_VIEW_EXISTS, Endpoint.V1_CREATE_VIEW,
      Endpoint.V1_UPDATE_VIEW, Endpoint.V1_DELETE_VIEW, Endpoint.V1_RENAME_VIEW, Endpoint.V1_REGISTER_VIEW);

  private static final String NAMESPACE_SEPARATOR = "\u001f";
  private static final String PARAMS = "lethe.iceberg.path-params";
  /** Response header of a synchronous purge: the id of the cleanup job that ran it. */
  public static final String PURGE_JOB_HEADER = DropHeaders.PURGE_JOB;
  /** Response header of a synchronous purge: the job's state when the request returned. */
  public static final String PURGE_STATE_HEADER = DropHeaders.PURGE_STATE;

  /** {@link #clientFileIOOverrides()} while soft deletion is on ({@code S3FileIOProperties.DELETE_ENABLED}). */
  static final Map<String, String> SOFT_DELETE_CLIENT_OVERRIDES = Map.of("s3.delete-enabled", "false");

  private final IcebergCatalogs catalogs;
  private final IcebergJson json;
  private final String defaultCatalog;
  private final AccessCheck access;
  private final Drops drops;
  private final java.util.function.Function<String, Counter> reports;
  private final PageTokenKey pageTokens;

  /**
   * @param catalogs the catalogs served, by name (= REST prefix)
   * @param json the Iceberg JSON mapper
   * @param defaultCatalog catalog used by {@code GET /config} without {@code warehouse}
   * @param access the access check run before every route
   * @param drops the table and view drop service (shared with the management drop route)
   * @param pageTokens the key listing tokens are signed with
   * @param registry where the count of accepted client reports ({@code lethe_iceberg_reports_total}) is kept
   */
  public IcebergRestRoutes(IcebergCatalogs catalogs, IcebergJson json, String defaultCatalog, AccessCheck access,
      Drops drops, PageTokenKey pageTokens, MeterRegistry registry) {
    this.reports = report -> Counter.builder("lethe.iceberg.reports")
        .description("Reports accepted from Iceberg clients (POST .../tables/{table}/metrics), by type: scan, commit, unknown")
        .tag("report", report).register(registry);
    this.pageTokens = pageTokens;
    this.catalogs = catalogs;
    this.json = json;
    this.defaultCatalog = defaultCatalog;
    this.access = access;
    this.drops = drops;
  }

  @FunctionalInterface
  private interface CatalogHandler {
    void handle(Context ctx, LetheCatalog catalog) throws Exception;
  }

  /** Registers every route. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, ROOT + "/v1/config", this::config);

    String p = ROOT + "/v1/{prefix}";
    String ns = p + "/namespaces/{namespace}";
    readRoute(routes, p + "/namespaces", (ctx, c) -> {
      String parent = ctx.queryParam("parent");
      Namespace parentNs = parent == null || parent.isEmpty() ? Namespace.empty() : decodeNamespace(parent);
      ListingCursor cursor = ListingCursor.of(pageTokens, ListingCursor.Listing.NAMESPACES, c.name(), NamespaceNames.encode(parentNs));
      Optional<PageRequest> page = page(ctx, cursor);
      if (page.isEmpty()) {
        ok(ctx, CatalogHandlers.listNamespaces(c, parentNs));
        return;
      }
      KeysetPage<Namespace> result = c.listNamespaces(parentNs, page.get().afterOrNull(), page.get().size());
      ok(ctx, ListNamespacesResponse.builder().addAll(builderCopy(result.items()))
          .nextPageToken(result.next().map(cursor::token).orElse(null)).build());
    });
    route(routes, HandlerType.POST, p + "/namespaces", (ctx, c) -> {
      CreateNamespaceRequest req = json.read(RequestBody.read(ctx), CreateNamespaceRequest.class);
      req.validate();
      ok(ctx, CatalogHandlers.createNamespace(c, req));
    });
    route(routes, HandlerType.GET, ns, (ctx, c) -> ok(ctx, CatalogHandlers.loadNamespace(c, namespace(ctx))));
    route(routes, HandlerType.HEAD, ns, (ctx, c) -> {
      CatalogHandlers.namespaceExists(c, namespace(ctx));
      ctx.status(204);
    });
    route(routes, HandlerType.DELETE, ns, (ctx, c) -> {
      CatalogHandlers.dropNamespace(c, namespace(ctx));
      ctx.status(204);
    });
    route(routes, HandlerType.POST, ns + "/properties", (ctx, c) -> {
      Namespace namespace = namespace(ctx);
      UpdateNamespacePropertiesRequest req = json.read(RequestBody.read(ctx), UpdateNamespacePropertiesRequest.class);
      ok(ctx, CatalogHandlers.updateNamespaceProperties(c, namespace, req));
    });

    // tables
    listRoute(routes, ns + "/tables", ListingCursor.Listing.TABLES, CatalogHandlers::listTables, LetheCatalog::listTables);
    newEntryRoute(routes, ns + "/tables", "table", CreateTableRequest.class, CreateTableRequest::name, (c, namespace, req) -> {
      if (!c.namespaceExists(namespace)) {
        throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
      }
      c.checkCreateRequest(req.location(), req.properties()); // 400 before a stage-create answers
      return req.stageCreate()
          ? CatalogHandlers.stageTableCreate(c, namespace, req)
          : CatalogHandlers.createTable(c, namespace, req);
    });
    String table = ns + "/tables/{table}";
    route(routes, HandlerType.GET, table,
        (ctx, c) -> ok(ctx, withClientOverrides(CatalogHandlers.loadTable(c, tableId(ctx), snapshotMode(ctx)))));
    entryRoutes(routes, table, p + "/tables/rename", new EntryRoutes("table", IcebergRestRoutes::tableId,
        CatalogHandlers::tableExists, CatalogHandlers::updateTable, CatalogHandlers::renameTable));
    route(routes, HandlerType.DELETE, table, (ctx, c) -> {
      // the path (metadata-only, sync, async, soft) is DropPlanner's decision, as on the management route
      DropHeaders.answer(ctx, drops.drop(c, tableId(ctx), DropHeaders.request(ctx), access.principal(AuthorizationHeader.of(ctx))));
      ctx.status(204);
    });
    // a scan or commit report changes nothing: a reader's client sends one after every scan
    route(routes, HandlerType.POST, table + "/metrics", false, (ctx, c) -> {
      tableId(ctx);
      ReportMetricsRequest req = json.read(RequestBody.read(ctx), ReportMetricsRequest.class);
      reports.apply(switch (req.reportType()) {
        case SCAN_REPORT -> "scan";
        case COMMIT_REPORT -> "commit";
        default -> "unknown";
      }).increment();
      ctx.status(204);
    });
    newEntryRoute(routes, ns + "/register", "table", RegisterTableRequest.class, RegisterTableRequest::name,
        CatalogHandlers::registerTable);
    route(routes, HandlerType.POST, p + "/transactions/commit", (ctx, c) -> {
      CommitTransactionRequest req = json.read(RequestBody.read(ctx), CommitTransactionRequest.class);
      req.validate();
      c.commitTransaction(req.tableChanges().stream()
          .map(change -> (TableCommit) ImmutableTableCommit.builder()
              .identifier(change.identifier())
              .requirements(change.requirements())
              .updates(change.updates())
              .build())
          .toList());
      ctx.status(204);
    });

    // views
    listRoute(routes, ns + "/views", ListingCursor.Listing.VIEWS, CatalogHandlers::listViews, LetheCatalog::listViews);
    newEntryRoute(routes, ns + "/views", "view", CreateViewRequest.class, CreateViewRequest::name,
        CatalogHandlers::createView);
    String view = ns + "/views/{view}";
    route(routes, HandlerType.GET, view, (ctx, c) -> ok(ctx, CatalogHandlers.loadView(c, viewId(ctx))));
    entryRoutes(routes, view, p + "/views/rename", new EntryRoutes("view", IcebergRestRoutes::viewId,
        CatalogHandlers::viewExists, CatalogHandlers::updateView, CatalogHandlers::renameView));
    route(routes, HandlerType.DELETE, view, (ctx, c) -> {
      // the path (metadata-only or async) is DropPlanner's decision for a view
      DropHeaders.answer(ctx, drops.dropView(c, () -> viewId(ctx), DropHeaders.request(ctx), access.principal(AuthorizationHeader.of(ctx))));
      ctx.status(204);
    });
    newEntryRoute(routes, ns + "/register-view", "view", RegisterViewRequest.class, RegisterViewRequest::name,
        CatalogHandlers::registerView);
  }

  private void config(Context ctx) {
    String warehouse = ctx.queryParam("warehouse");
    String name = warehouse == null || warehouse.isEmpty() ? defaultCatalog : warehouse;
    access.check(AuthorizationHeader.of(ctx), name, false);
    catalogs.catalog(name).orElseThrow(() -> new NotFoundException("Warehouse does not exist: %s", name));
    ConfigResponse.Builder config = ConfigResponse.builder()
        .withOverride("prefix", name)
        .withEndpoints(ENDPOINTS);
    clientFileIOOverrides().forEach(config::withOverride);
    ok(ctx, config.build());
  }

  /**
   * FileIO settings every client must use while soft deletion is on: S3 deletes are no-ops on the
   * client, so a client-side purge (Spark's DROP TABLE … PURGE without rest-catalog-purge) cannot
   * destroy a table the catalog retains (docs/design/0302-client-fileio-overrides.md). Sent as
   * {@code /config} overrides and as load-table config; the server's own FileIO is built from the
   * catalog's properties and never sees them.
   */
  private Map<String, String> clientFileIOOverrides() {
    return drops.softDeletionOn() ? SOFT_DELETE_CLIENT_OVERRIDES : Map.of();
  }

  private LoadTableResponse withClientOverrides(LoadTableResponse response) {
    Map<String, String> overrides = clientFileIOOverrides();
    if (overrides.isEmpty()) {
      return response;
    }
    return LoadTableResponse.builder()
        .withTableMetadata(response.tableMetadata())
        .addAllConfig(response.config())
        .addAllConfig(overrides)
        .addAllCredentials(response.credentials())
        .build();
  }

  /**
   * What the table and view routes of the Iceberg REST spec share, for one of the two.
   *
   * @param word "table" or "view", as a refused destination name says
   */
  private record EntryRoutes(String word, Function<Context, TableIdentifier> id,
      BiConsumer<LetheCatalog, TableIdentifier> exists, Update update, BiConsumer<LetheCatalog, RenameTableRequest> rename) {}

  @FunctionalInterface
  private interface Update {
    Object update(LetheCatalog catalog, TableIdentifier id, UpdateTableRequest request);
  }

  @FunctionalInterface
  private interface NewEntry<Q> {
    Object answer(LetheCatalog catalog, Namespace namespace, Q request);
  }

  /** A POST that names a new table or view in the namespace: the body read, checked (its name too), then answered. */
  private <Q extends RESTRequest> void newEntryRoute(RoutesConfig routes, String path, String word, Class<Q> type,
      Function<Q, String> name, NewEntry<Q> call) {
    route(routes, HandlerType.POST, path, (ctx, c) -> {
      Namespace namespace = namespace(ctx);
      Q req = json.read(RequestBody.read(ctx), type);
      req.validate();
      EntityNames.check(word, name.apply(req));
      ok(ctx, call.answer(c, namespace, req));
    });
  }

  /** HEAD of an entry (204 or 404), its commit, and its rename. */
  private void entryRoutes(RoutesConfig routes, String entry, String rename, EntryRoutes kind) {
    route(routes, HandlerType.HEAD, entry, (ctx, c) -> {
      kind.exists().accept(c, kind.id().apply(ctx));
      ctx.status(204);
    });
    route(routes, HandlerType.POST, entry, (ctx, c) -> {
      TableIdentifier id = kind.id().apply(ctx);
      UpdateTableRequest req = json.read(RequestBody.read(ctx), UpdateTableRequest.class);
      ok(ctx, kind.update().update(c, id, req));
    });
    route(routes, HandlerType.POST, rename, (ctx, c) -> {
      RenameTableRequest req = json.read(RequestBody.read(ctx), RenameTableRequest.class);
      req.validate();
      EntityNames.checkIdentifier(kind.word(), req.destination());
      kind.rename().accept(c, req);
      ctx.status(204);
    });
  }

  /** One keyset page of a namespace's tables or views. */
  @FunctionalInterface
  private interface PagedListing {
    KeysetPage<TableIdentifier> list(LetheCatalog catalog, Namespace namespace, String after, int size);
  }

  /**
   * The listing of a namespace's tables or views: all of them, or one keyset page when the client
   * asks for pages (docs/design/0403-keyset-catalog-listings.md).
   */
  private void listRoute(RoutesConfig routes, String path, ListingCursor.Listing listing,
      BiFunction<LetheCatalog, Namespace, ListTablesResponse> all, PagedListing paged) {
    readRoute(routes, path, (ctx, c) -> {
      Namespace namespace = namespace(ctx);
      ListingCursor cursor = ListingCursor.of(pageTokens, listing, c.name(), NamespaceNames.encode(namespace));
      Optional<PageRequest> page = page(ctx, cursor);
      if (page.isEmpty()) {
        ok(ctx, all.apply(c, namespace));
        return;
      }
      KeysetPage<TableIdentifier> result = paged.list(c, namespace, page.get().afterOrNull(), page.get().size());
      ok(ctx, ListTablesResponse.builder().addAll(builderCopy(result.items()))
          .nextPageToken(result.next().map(cursor::token).orElse(null)).build());
    });
  }

  /** A GET route that has no HEAD of its own: a HEAD runs it, with its read check (docs/design/0422-what-a-reader-is-told.md). */
  private void readRoute(RoutesConfig routes, String path, CatalogHandler handler) {
    route(routes, HandlerType.GET, path, handler);
    route(routes, HandlerType.HEAD, path, handler);
  }

  /** A route whose grant follows its method: GET and HEAD read, anything else writes. */
  private void route(RoutesConfig routes, HandlerType method, String path, CatalogHandler handler) {
    route(routes, method, path, method != HandlerType.GET && method != HandlerType.HEAD, handler);
  }

  /** A route needing the catalog in {@code write} when {@code write}, else in {@code read} or {@code write}. */
  private void route(RoutesConfig routes, HandlerType method, String path, boolean write, CatalogHandler handler) {
    routes.addHttpHandler(method, path, ctx -> {
      // decoded as the reference server does ('+' is a space), before anything else reads them
      ctx.attribute(PARAMS, PathSegments.params(path, ctx.path()));
      String prefix = param(ctx, "prefix");
      access.check(AuthorizationHeader.of(ctx), prefix, write);
      LetheCatalog catalog = catalogs.catalog(prefix)
          .orElseThrow(() -> new NotFoundException("Catalog does not exist: %s", prefix));
      handler.handle(ctx, catalog);
    });
  }

  private void ok(Context ctx, Object response) {
    ctx.status(200).contentType("application/json").result(json.write(response));
  }

  /** The page asked for; keyset paging by the catalog, not Iceberg's offset paging in {@link CatalogHandlers}. */
  private static Optional<PageRequest> page(Context ctx, ListingCursor cursor) {
    return PageRequest.parse(ctx.queryParam("pageToken"), ctx.queryParam("pageSize"), cursor);
  }

  /** A copy Iceberg's response builders accept: they ask {@code contains(null)}, which immutable lists refuse. */
  private static <T> List<T> builderCopy(List<T> items) {
    return new java.util.ArrayList<>(items);
  }

  private static SnapshotMode snapshotMode(Context ctx) {
    String v = ctx.queryParam("snapshots");
    if (v == null || v.isEmpty()) {
      return SnapshotMode.ALL;
    }
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "all" -> SnapshotMode.ALL;
      case "refs" -> SnapshotMode.REFS;
      default -> throw new IllegalArgumentException("Invalid snapshots: expected all or refs: " + v);
    };
  }

  /** A path parameter decoded by {@link PathSegments}. */
  private static String param(Context ctx, String name) {
    java.util.Map<String, String> params = ctx.attribute(PARAMS);
    String value = params == null ? null : params.get(name);
    return value != null ? value : ctx.pathParam(name);
  }

  private static Namespace namespace(Context ctx) {
    return decodeNamespace(param(ctx, "namespace"));
  }

  private static Namespace decodeNamespace(String decoded) {
    Namespace namespace = Namespace.of(decoded.split(NAMESPACE_SEPARATOR, -1));
    EntityNames.checkNamespace(namespace);
    return namespace;
  }

  private static TableIdentifier tableId(Context ctx) {
    TableIdentifier id = TableIdentifier.of(namespace(ctx), param(ctx, "table"));
    EntityNames.check("table", id.name());
    return id;
  }

  private static TableIdentifier viewId(Context ctx) {
    TableIdentifier id = TableIdentifier.of(namespace(ctx), param(ctx, "view"));
    EntityNames.check("view", id.name());
    return id;
  }

}
