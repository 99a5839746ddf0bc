package dev.lethe.server.management;

import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.softdelete.CatalogSummaries;
import dev.lethe.catalog.softdelete.CatalogSummary;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.auth.Principal;
import dev.lethe.server.http.ReadRoutes;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET} (and {@code HEAD}) {@code /api/metalakes/{m}/catalogs/{c}/summary}: a catalog's
 * figures in one answer (docs/design/0450-catalog-summary.md), the console's Overview:
 * {@code {"catalog", "now", "jobs": {state: n…}, "oldestPendingCreatedAt", "failed": [{id,
 * objectType, namespace, name, lastError}…], "retainedTables", "nearestDeadline", "holds",
 * "protections"}}. Times are ms since epoch on the database clock ({@code now} is when the reading
 * started); {@code holds} counts the holds in force (not released, not past their end). Read access
 * on the catalog, as the cleanup job listing: 401/403, then 404 unknown metalake or catalog;
 * {@code lastError} is redacted for a caller who is not an admin as that listing redacts it
 * (docs/design/0424-what-a-reader-sees-of-paths.md).
 */
public final class SummaryRoutes {
  /** Path of the route. */
  public static final String PATH = "/api/metalakes/{metalake}/catalogs/{catalog}/summary";

  /** The order of {@code jobs} in the answer: the order a job lives them in, the console's order. */
  private static final List<CleanupJobState> STATES = List.of(CleanupJobState.PENDING, CleanupJobState.RUNNING,
      CleanupJobState.SUCCEEDED, CleanupJobState.FAILED, CleanupJobState.ABANDONED, CleanupJobState.CANCELLED);

  private final IcebergCatalogs catalogs;
  private final CatalogSummaries summaries;
  private final AccessCheck access;

  public SummaryRoutes(IcebergCatalogs catalogs, CatalogSummaries summaries, AccessCheck access) {
    this.catalogs = catalogs;
    this.summaries = summaries;
    this.access = access;
  }

  /** Registers the route. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, PATH, this::summary);
  }

  private void summary(Context ctx) {
    String auth = AuthorizationHeader.of(ctx);
    access.check(auth, ctx.pathParam("catalog"), false);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    boolean admin = access.storeCaller(auth).map(Principal::isAdmin).orElse(true);
    CatalogSummary s = summaries.of(catalog.row());
    Map<String, Object> jobs = new LinkedHashMap<>();
    for (CleanupJobState state : STATES) {
      jobs.put(state.name(), s.jobs().getOrDefault(state, 0L));
    }
    List<Map<String, Object>> failed = new ArrayList<>();
    for (CleanupJob job : s.failed()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", job.jobId());
      m.put("objectType", job.objectType().name());
      m.put("namespace", Arrays.asList(NamespaceNames.decode(job.namespace()).levels()));
      m.put("name", job.objectName());
      m.put("lastError", admin ? job.lastError() : LastErrorRedaction.forReader(job.lastError(), job.metadataLocation()));
      failed.add(m);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("catalog", catalog.name());
    body.put("now", s.now());
    body.put("jobs", jobs);
    body.put("oldestPendingCreatedAt", s.oldestPendingCreatedAt());
    body.put("failed", failed);
    body.put("retainedTables", s.retainedTables());
    body.put("nearestDeadline", s.nearestDeadline());
    body.put("holds", s.holds());
    body.put("protections", s.protections());
    ctx.status(200).json(body);
  }
}
