package dev.lethe.server.management;

import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.auth.Principal;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceNames;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.iceberg.WellFormedText;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobListing;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.JobControl;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.http.ListingCursor;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;

/**
 * The read-only cleanup job listing (docs/design/0201-cleanup-jobs.md §9 phase 2; docs/design/0200-catalog-architecture.md "HTTP surface"):
 * {@code GET /api/metalakes/{m}/catalogs/{c}/cleanups?namespace=&name=&state=&limit=&pageToken=}, newest
 * first, {@code limit} (1..10000, default 1000) jobs a page; {@code nextPageToken} (null on the last
 * page) continues below the page's last job id (docs/design/0403-keyset-catalog-listings.md). Rows never carry FileIO properties, credentials or metadata locations. Errors are {@code
 * {code, type, message}} JSON.
 *
 * <p>Admin actions (docs/design/0440-job-control.md): {@code POST …/cleanups/{id}/retry} (a FAILED
 * job back to PENDING) and {@code POST …/cleanups/{id}/run-now} (a PENDING job claimable now), each
 * 200 with the job as it now is in the row shape; 400 an id that is not a positive integer, 401/403
 * not an admin, 404 unknown metalake, catalog or job, 409 the job's state does not allow it ({@code
 * state} names it); nothing changes on an error.
 */
public final class CleanupRoutes {
  /** Path of the route. */
  public static final String PATH = "/api/metalakes/{metalake}/catalogs/{catalog}/cleanups";
  private static final int DEFAULT_LIMIT = 1000;
  private static final ObjectReader STRICT_JSON = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final IcebergCatalogs catalogs;
  private final CleanupJobListing jobsListing;
  private final JobControl jobControl;
  private final AccessCheck access;
  private final PageTokenKey pageTokens;

  /**
   * Routes over the catalogs served and their cleanup jobs; {@code access} needs read on the catalog
   * for the listing, admin for an action.
   *
   * @param jobControl the one service the actions call
   * @param pageTokens the key listing tokens are signed with
   */
  public CleanupRoutes(IcebergCatalogs catalogs, CleanupJobListing jobsListing, JobControl jobControl, AccessCheck access,
      PageTokenKey pageTokens) {
    this.jobControl = jobControl;
    this.pageTokens = pageTokens;
    this.catalogs = catalogs;
    this.jobsListing = jobsListing;
    this.access = access;
  }

  /** Registers the routes. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, PATH, this::list);
    routes.post(PATH + "/{id}/retry", ctx -> act(ctx, jobControl::retry));
    routes.post(PATH + "/{id}/run-now", ctx -> act(ctx, jobControl::runNow));
  }

  @FunctionalInterface
  private interface Action {
    CleanupJob apply(String catalogId, String catalogName, long jobId);
  }

  /**
   * An admin's action on one job (docs/design/0440-job-control.md): admin (401/403), then the
   * catalog (404), then the id (400); answers 200 with the job as it now is, in the listing's row
   * shape. 404 unknown job and 409 wrong state are thrown by {@link JobControl}.
   */
  private void act(Context ctx, Action action) {
    access.checkAdmin(AuthorizationHeader.of(ctx));
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    String id = ctx.pathParam("id");
    long jobId;
    try {
      jobId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      jobId = -1;
    }
    if (jobId < 1) {
      throw new IllegalArgumentException("Invalid cleanup job id: expected a positive integer, got '" + id + "'");
    }
    ctx.status(200).json(view(action.apply(catalog.row().catalogId(), catalog.name(), jobId), true));
  }

  private void list(Context ctx) {
    String catalogName = ctx.pathParam("catalog");
    access.check(AuthorizationHeader.of(ctx), catalogName, false);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    String stateParam = ctx.queryParam("state");
    CleanupJobState state = stateParam != null && !stateParam.isEmpty() ? CleanupJobState.parse(stateParam) : null;
    int limit = DEFAULT_LIMIT;
    String limitParam = ctx.queryParam("limit");
    if (limitParam != null && !limitParam.isEmpty()) {
      try {
        limit = Integer.parseInt(limitParam);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > 10_000) {
        throw new IllegalArgumentException("Invalid limit: expected 1..10000, got " + limitParam);
      }
    }
    String nsParam = ctx.queryParam("namespace");
    String namespace = nsParam == null || nsParam.isEmpty() ? null : NamespaceNames.encode(parseNamespace(nsParam));
    String name = ctx.queryParam("name");
    String objectName = name == null || name.isEmpty() ? null : name;
    ListingCursor cursor = ListingCursor.of(pageTokens, ListingCursor.Listing.CLEANUP_JOBS, ctx.pathParam("metalake"),
        catalog.name(), namespace == null ? "" : namespace, objectName == null ? "" : objectName,
        state == null ? "" : state.name());
    Long before = before(ctx.queryParam("pageToken"), cursor);
    KeysetPage<CleanupJob> jobs = jobsListing.page(catalog.row().catalogId(), namespace, objectName, state, before, limit);
    // docs/design/0424-what-a-reader-sees-of-paths.md
    boolean admin = access.storeCaller(AuthorizationHeader.of(ctx)).map(Principal::isAdmin).orElse(true);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (CleanupJob job : jobs.items()) {
      rows.add(view(job, admin));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("cleanups", rows);
    body.put("nextPageToken", jobs.next().map(cursor::token).orElse(null));
    ctx.status(200).json(body);
  }

  /** The job id a {@code pageToken} continues below, null for none or an empty token. */
  private static Long before(String pageToken, ListingCursor cursor) {
    if (pageToken == null || pageToken.isEmpty()) {
      return null;
    }
    String after = cursor.after(pageToken);
    try {
      return Long.valueOf(after);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid pageToken: not a token this server issued for this listing "
          + "(start again without pageToken)");
    }
  }

  /**
   * A {@code namespace} query parameter: a JSON array of the levels ({@code ["a.b","c"]}, the one
   * exact spelling, since a level may contain a dot), else levels separated by U+001F (as in Iceberg
   * REST paths), else by dots (docs/design/0441-drop-protection.md "Exact names").
   *
   * @throws IllegalArgumentException (400) for a parameter starting with {@code [} that is not a
   *     non-empty JSON array of names an entry can have
   */
  static Namespace parseNamespace(String param) {
    if (param.startsWith("[")) {
      return jsonNamespace(param);
    }
    String sep = param.contains(NamespaceNames.SEPARATOR) ? NamespaceNames.SEPARATOR : "\\.";
    return Namespace.of(param.split(sep, -1));
  }

  private static Namespace jsonNamespace(String param) {
    JsonNode array;
    try {
      array = STRICT_JSON.readTree(param);
    } catch (IOException e) {
      array = null;
    }
    List<String> levels = new ArrayList<>();
    if (array != null && array.isArray()) {
      for (JsonNode level : array) {
        if (!level.isTextual()) {
          levels = null;
          break;
        }
        levels.add(level.asText());
      }
    }
    if (levels == null || levels.isEmpty()) {
      throw new IllegalArgumentException("Invalid namespace parameter: expected levels separated by dots, or a "
          + "non-empty JSON array of strings such as [\"a.b\",\"c\"]");
    }
    Namespace namespace = Namespace.of(levels.toArray(new String[0]));
    for (String level : levels) {
      WellFormedText.check("namespace", level);
    }
    EntityNames.checkNamespace(namespace);
    return namespace;
  }

  /**
   * The public shape of a job: no FileIO properties, credentials or locations; {@code lastError}
   * as stored for an admin, through {@link LastErrorRedaction#forReader} for anyone else.
   */
  static Map<String, Object> view(CleanupJob job, boolean admin) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", job.jobId());
    m.put("objectType", job.objectType().name());
    m.put("catalog", job.catalogName());
    m.put("namespace", Arrays.asList(NamespaceNames.decode(job.namespace()).levels()));
    m.put("name", job.objectName());
    m.put("state", job.state().name());
    m.put("attempts", job.attempts());
    m.put("lastError", admin ? job.lastError() : LastErrorRedaction.forReader(job.lastError(), job.metadataLocation()));
    // confinement (docs/design/0001 §2): files named in the metadata outside the table location, never deleted
    m.put("keptFiles", job.keptFiles());
    m.put("heartbeatAt", job.heartbeatAt());
    m.put("nextAttemptAt", job.nextAttemptAt()); // a waiting retry (docs/design/0050-retry-backoff.md)
    m.put("createdBy", job.createdBy());
    m.put("createdAt", job.createdAt());
    m.put("updatedAt", job.updatedAt());
    return m;
  }
}
