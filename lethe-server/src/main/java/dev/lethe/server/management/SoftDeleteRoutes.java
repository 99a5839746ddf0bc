package dev.lethe.server.management;

import dev.lethe.server.http.ApiException;
import dev.lethe.server.http.DotSegments;
import dev.lethe.server.http.DropHeaders;
import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.drop.Drops;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.softdelete.DeletedTable;
import dev.lethe.catalog.softdelete.DeletionRecord;
import dev.lethe.catalog.softdelete.SoftDeletePlanner;
import dev.lethe.catalog.softdelete.PurgedNow;
import dev.lethe.catalog.softdelete.SoftDeletes;
import dev.lethe.catalog.softdelete.PurgePreviews;
import dev.lethe.catalog.purge.PurgePreview;
import dev.lethe.server.auth.Principal;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.http.ListingCursor;
import dev.lethe.server.http.PageRequest;
import org.apache.iceberg.exceptions.NoSuchTableException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The soft deletion's management routes (docs/design/0202-soft-deletion.md §2; docs/design/0200-catalog-architecture.md "Soft deletion")
 * under {@code /api/metalakes/{m}/catalogs/{c}/schemas/{s}/tables}. {@code {s}} is the namespace,
 * its levels joined by U+001F ({@code %1F}) as in the Iceberg REST paths.
 *
 * <table>
 *   <caption>Routes</caption>
 *   <tr><th>route</th><th>access</th><th>success</th></tr>
 *   <tr><td>{@code DELETE …/tables/{t}[?purgeRequested=true|false]} [+ async header]</td><td>write</td><td>204 (the Iceberg route's decision)</td></tr>
 *   <tr><td>{@code GET …/tables?deleted=true[&pageToken=&pageSize=]}</td><td>read</td><td>200 {@code {"deleted":[…]}}, by
 *   name; paged ({@code + "nextPageToken"}, null on the last page) when either parameter is given</td></tr>
 *   <tr><td>{@code GET …/tables/{t}?deleted=true}</td><td>read</td><td>200 one deleted table</td></tr>
 *   <tr><td>{@code POST …/tables/{t}/undrop}</td><td>write</td><td>200 {@code {name, namespace, entityId}}</td></tr>
 *   <tr><td>{@code POST …/tables/{t}/purge}</td><td>admin</td><td>202 (job enqueued or running) or 200 (metadata removed)</td></tr>
 *   <tr><td>{@code GET …/tables/{t}/purge-preview}</td><td>read</td><td>200 what a purge would delete and keep now ({@link PurgePreviewView})</td></tr>
 * </table>
 *
 * <p>A deleted table is shown with exactly {@code name, entityId, deletedAt, retentionExpiresAt,
 * deletedBy, purgeRequested, recoverable, state} and, when a purge job is attached, {@code
 * purgeJobState}; never a metadata location, FileIO properties or credentials. Errors are {@code
 * {code, type, message}}: 400 bad input, 401/403 access, 404 unknown metalake, catalog, schema,
 * table or retained deletion, 409 another entry or cleanup job holds a location overlapping the
 * table's (undrop, purge-now, synchronous purge) or, on undrop, files the table needs were deleted
 * outside the catalog (then the listing shows {@code recoverable: false} with a {@code reason}), 410
 * deadline passed or purge owns the record.
 * Nothing changes on an error. The routes only parse, check access and render; {@link SoftDeletes} decides.
 */
public final class SoftDeleteRoutes {
  /** Path of the table collection. */
  public static final String TABLES = "/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables";
  /** Path of one table. */
  public static final String TABLE = TABLES + "/{table}";

  private final IcebergCatalogs catalogs;
  private final SoftDeletes softDeletes;
  private final AccessCheck access;
  private final Drops drops;
  private final PageTokenKey pageTokens;
  private final PurgePreviews previews;

  /**
   * @param drops the table drop service the Iceberg route uses too (one decision for both)
   * @param pageTokens the key listing tokens are signed with
   * @param previews previews a purge of a live or retained table
   */
  public SoftDeleteRoutes(IcebergCatalogs catalogs, SoftDeletes softDeletes, AccessCheck access, Drops drops,
      PageTokenKey pageTokens, PurgePreviews previews) {
    this.previews = previews;
    this.pageTokens = pageTokens;
    this.catalogs = catalogs;
    this.softDeletes = softDeletes;
    this.access = access;
    this.drops = drops;
  }

  private enum Need { READ, WRITE, ADMIN }

  @FunctionalInterface
  private interface Handler {
    void handle(Context ctx, LetheCatalog catalog, Namespace namespace);
  }

  /**
   * Registers every route, and a filter that answers 400 to any management path with a {@code .} or
   * {@code ..} segment (or namespace level), including paths no route matches: the server does not
   * resolve dot segments, so they would otherwise be names or an unknown route.
   */
  public void register(RoutesConfig routes) {
    routes.before("/api/metalakes/*", SoftDeleteRoutes::rejectDotSegments);
    ReadRoutes.getAndHead(routes, TABLES, ctx -> run(ctx, Need.READ, this::list));
    ReadRoutes.getAndHead(routes, TABLE, ctx -> run(ctx, Need.READ, this::load));
    routes.delete(TABLE, ctx -> run(ctx, Need.WRITE, this::drop));
    routes.post(TABLE + "/undrop", ctx -> run(ctx, Need.WRITE, this::undrop));
    routes.post(TABLE + "/purge", ctx -> run(ctx, Need.ADMIN, this::purgeNow));
    ReadRoutes.getAndHead(routes, TABLE + "/purge-preview", ctx -> run(ctx, Need.READ, this::purgePreview));
  }

  /** Access, then metalake and catalog (404), then the names (400), then the schema (404). */
  private void run(Context ctx, Need need, Handler handler) {
    String catalogName = ctx.pathParam("catalog");
    String auth = AuthorizationHeader.of(ctx);
    if (need == Need.ADMIN) {
      access.checkAdmin(auth);
    } else {
      access.check(auth, catalogName, need == Need.WRITE);
    }
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    Namespace namespace = Namespace.of(ctx.pathParam("schema").split(NamespaceNames.SEPARATOR, -1));
    EntityNames.checkNamespace(namespace);
    if (ctx.pathParamMap().containsKey("table")) {
      EntityNames.check("table", ctx.pathParam("table"));
    }
    if (!catalog.namespaceExists(namespace)) {
      throw new ApiException(404, "NoSuchSchemaException", "Schema does not exist: " + namespace);
    }
    handler.handle(ctx, catalog, namespace);
  }

  private static void rejectDotSegments(Context ctx) {
    DotSegments.relative(ctx.path(), true).ifPresent(level -> {
      throw new ApiException(400, "IllegalArgumentException",
          "Invalid path " + ctx.path() + ": '" + level + "' is a relative path segment");
    });
  }

  private static TableIdentifier table(Context ctx, Namespace namespace) {
    return TableIdentifier.of(namespace, ctx.pathParam("table"));
  }

  /** Only {@code deleted=true} is served: there is no live-table listing on these routes (use Iceberg REST). */
  private static void deletedParam(Context ctx) {
    String v = ctx.queryParam("deleted");
    if (!"true".equalsIgnoreCase(v)) {
      throw new ApiException(400, "IllegalArgumentException", "Invalid deleted: only deleted=true is supported, got "
          + (v == null ? "none" : "'" + v + "'") + " (live tables are listed by the Iceberg REST routes)");
    }
  }

  private void list(Context ctx, LetheCatalog catalog, Namespace namespace) {
    deletedParam(ctx);
    ListingCursor cursor = ListingCursor.of(pageTokens, ListingCursor.Listing.DELETED_TABLES, ctx.pathParam("metalake"),
        catalog.name(), NamespaceNames.encode(namespace));
    Optional<PageRequest> page = PageRequest.parse(ctx.queryParam("pageToken"), ctx.queryParam("pageSize"), cursor);
    Map<String, Object> body = new LinkedHashMap<>();
    if (page.isEmpty()) {
      List<DeletedTable> deleted = softDeletes.list(catalog.row(), namespace).orElse(List.of());
      body.put("deleted", deleted.stream().map(SoftDeleteRoutes::view).toList());
    } else {
      KeysetPage<DeletedTable> deleted = softDeletes.list(catalog.row(), namespace, page.get().afterOrNull(),
          page.get().size()).orElse(new KeysetPage<>(List.of(), Optional.empty()));
      body.put("deleted", deleted.items().stream().map(SoftDeleteRoutes::view).toList());
      body.put("nextPageToken", deleted.next().map(cursor::token).orElse(null));
    }
    ctx.status(200).json(body);
  }

  private void load(Context ctx, LetheCatalog catalog, Namespace namespace) {
    deletedParam(ctx);
    TableIdentifier id = table(ctx, namespace);
    Optional<DeletedTable> deleted = softDeletes.load(catalog.row(), id);
    if (deleted.isEmpty()) {
      throw notFound("No retained deletion of table " + id);
    }
    ctx.status(200).json(view(deleted.get()));
  }

  /**
   * The drop the Iceberg route does, decided by the same {@code DropPlanner} through the same {@link
   * Drops} service: soft drop with soft delete on, else metadata only, synchronous purge
   * ({@code purgeRequested=true}) or asynchronous purge (async header or catalog default).
   */
  private void drop(Context ctx, LetheCatalog catalog, Namespace namespace) {
    DropHeaders.answer(ctx, drops.drop(catalog, table(ctx, namespace), DropHeaders.request(ctx),
        access.principal(AuthorizationHeader.of(ctx))));
    ctx.status(204);
  }

  private void undrop(Context ctx, LetheCatalog catalog, Namespace namespace) {
    TableIdentifier id = table(ctx, namespace);
    SoftDeletePlanner.RestoreDecision d = softDeletes.restore(catalog.row(), id);
    if (d instanceof SoftDeletePlanner.Restore r) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", r.row().name());
      body.put("namespace", Arrays.asList(namespace.levels()));
      body.put("entityId", r.row().tableId());
      ctx.status(200).json(body);
    } else if (d instanceof SoftDeletePlanner.Gone g) {
      throw gone("Cannot undrop " + id + ": " + g.reason());
    } else if (d instanceof SoftDeletePlanner.Hollow h) {
      throw new ApiException(409, "TableFilesMissingException", "Cannot undrop " + id + ": " + h.reason());
    } else {
      throw notFound("Cannot undrop " + id + ": " + ((SoftDeletePlanner.NoRetainedDeletion) d).reason());
    }
  }

  private void purgeNow(Context ctx, LetheCatalog catalog, Namespace namespace) {
    TableIdentifier id = table(ctx, namespace);
    PurgedNow done = softDeletes.purgeNowShown(catalog.row(), id, access.principal(AuthorizationHeader.of(ctx)));
    if (done instanceof PurgedNow.Refused r) {
      throw notFound("Cannot purge " + id + ": " + r.reason());
    }
    if (done instanceof PurgedNow.Removed removed) {
      ctx.status(200).json(view(removed.table()));
      return;
    }
    ctx.status(202).json(view(((PurgedNow.Purging) done).table()));
  }

  /**
   * What a purge of the live table, else of its retained deletion, would do now; deletes and claims
   * nothing (docs/design/0442-purge-preview.md). Paths as stored for an admin, through {@link
   * LastErrorRedaction#forReader} for anyone else (docs/design/0424-what-a-reader-sees-of-paths.md).
   */
  private void purgePreview(Context ctx, LetheCatalog catalog, Namespace namespace) {
    TableIdentifier id = table(ctx, namespace);
    PurgePreviews.Previewed p = previews.preview(catalog.row(), id, PurgePreview.DEFAULT_SAMPLE)
        .orElseThrow(() -> notFound("Table does not exist and has no retained deletion: " + id));
    boolean admin = access.storeCaller(AuthorizationHeader.of(ctx)).map(Principal::isAdmin).orElse(true);
    ctx.status(200).json(PurgePreviewView.of(id, p, admin));
  }

  /** The safe fields of docs/design/0202-soft-deletion.md §2 plus {@code state}, {@code held} and {@code purgeJobState}; nothing else. */
  static Map<String, Object> view(DeletedTable t) {
    DeletionRecord r = t.record();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", t.name());
    m.put("entityId", r.entityId());
    m.put("deletedAt", r.deletedAt());
    m.put("retentionExpiresAt", r.retentionExpiresAt());
    m.put("deletedBy", r.deletedBy());
    m.put("purgeRequested", r.purgeRequested());
    m.put("recoverable", t.recoverable());
    m.put("held", t.held());
    m.put("state", r.state().name());
    if (t.notRecoverableReason() != null) {
      m.put("reason", t.notRecoverableReason());
    }
    if (r.purgeJobId() != null && t.purgeJobState() != null) {
      m.put("purgeJobState", t.purgeJobState().name());
    }
    return m;
  }

  private static ApiException notFound(String message) {
    return new ApiException(404, "NoSuchTableException", message);
  }

  private static ApiException gone(String message) {
    return new ApiException(410, "TableNotRecoverableException", message);
  }
}
