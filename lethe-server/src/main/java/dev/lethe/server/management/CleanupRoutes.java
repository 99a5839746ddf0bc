package dev.lethe.server.management;

import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.auth.Principal;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceNames;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.iceberg.WellFormedText;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobListing;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupReceipt;
import dev.lethe.catalog.jobs.FileKind;
import dev.lethe.catalog.jobs.JobActivity;
import dev.lethe.catalog.jobs.JobProgress;
import dev.lethe.catalog.jobs.ListedJob;
import dev.lethe.catalog.jobs.JobControl;
import dev.lethe.catalog.softdelete.JobEndings;
import dev.lethe.server.http.JsonBody;
import dev.lethe.server.http.RequestBody;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.http.ListingCursor;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
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
 *
 * <p>Ending a job by hand (docs/design/0443-abandon-and-rescue.md): {@code POST …/cleanups/{id}/abandon}
 * with body {@code {"reason": "…"}} (required, at most 1024 characters; a FAILED job ends ABANDONED)
 * and {@code POST …/cleanups/{id}/rescue} with an optional body {@code {"reason": "…"}} (a PENDING or
 * FAILED job ends CANCELLED and its table is back); same answers, and 409 when the rescue finds a
 * file gone or the name taken. Both record the caller as {@code endedBy}.
 */
public final class CleanupRoutes {
  /** Path of the route. */
  public static final String PATH = "/api/metalakes/{metalake}/catalogs/{catalog}/cleanups";
  private static final int DEFAULT_LIMIT = 1000;

  private final IcebergCatalogs catalogs;
  private final CleanupJobListing jobsListing;
  private final JobControl jobControl;
  private final JobEndings jobEndings;
  private final AccessCheck access;
  private final PageTokenKey pageTokens;

  /**
   * Routes over the catalogs served and their cleanup jobs; {@code access} needs read on the catalog
   * for the listing, admin for an action.
   *
   * @param jobControl the service retry and run-now call
   * @param jobEndings the service abandon and rescue call
   * @param pageTokens the key listing tokens are signed with
   */
  public CleanupRoutes(IcebergCatalogs catalogs, CleanupJobListing jobsListing, JobControl jobControl,
      JobEndings jobEndings, AccessCheck access, PageTokenKey pageTokens) {
    this.jobControl = jobControl;
    this.jobEndings = jobEndings;
    this.pageTokens = pageTokens;
    this.catalogs = catalogs;
    this.jobsListing = jobsListing;
    this.access = access;
  }

  /** Registers the routes. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, PATH, this::list);
    ReadRoutes.getAndHead(routes, PATH + "/{id}", this::one);
    ReadRoutes.getAndHead(routes, PATH + "/{id}/receipt", this::receipt);
    routes.post(PATH + "/{id}/retry", ctx -> act(ctx, jobControl::retry));
    routes.post(PATH + "/{id}/run-now", ctx -> act(ctx, jobControl::runNow));
    routes.post(PATH + "/{id}/abandon", ctx -> end(ctx, true));
    routes.post(PATH + "/{id}/rescue", ctx -> end(ctx, false));
  }

  /** Abandon or rescue: as {@link #act}, then the body's reason; the caller is recorded as who ended the job. */
  private void end(Context ctx, boolean abandon) {
    String auth = AuthorizationHeader.of(ctx);
    access.checkAdmin(auth);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    long jobId = jobId(ctx);
    String reason = reason(ctx);
    String by = access.principal(auth);
    CleanupJob job = abandon ? jobEndings.abandon(catalog.row(), jobId, by, reason)
        : jobEndings.rescue(catalog.row(), jobId, by, reason);
    ctx.status(200).json(view(new ListedJob(job, null, false), true));
  }

  /** The {@code reason} of an optional JSON object body {@code {"reason": "…"}}; null when absent. */
  private static String reason(Context ctx) {
    byte[] bytes = RequestBody.read(ctx);
    if (new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).isBlank()) {
      return null;
    }
    // the bytes, not a decoded String: a body that is not UTF-8 is refused, not stored with U+FFFD
    JsonNode body = JsonBody.parseOrNull(bytes);
    if (body == null) {
      throw new IllegalArgumentException("Invalid body: not JSON; expected {\"reason\": \"...\"}");
    }
    if (!body.isObject()) {
      throw new IllegalArgumentException("Invalid body: expected a JSON object {\"reason\": \"...\"}");
    }
    for (java.util.Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("reason")) {
        throw new IllegalArgumentException("Invalid body: unknown field '" + f + "' (expected reason)");
      }
    }
    JsonNode reason = body.get("reason");
    if (reason == null || reason.isNull()) {
      return null;
    }
    if (!reason.isTextual()) {
      throw new IllegalArgumentException("Invalid reason: expected a string");
    }
    // as a hold's or protection's reason: PostgreSQL refuses U+0000 (a 500), and an unpaired
    // surrogate would be stored as '?' (docs/design/0400-strict-request-input.md)
    NamedTargets.checkReason(reason.asText(), "reason");
    return reason.asText();
  }

  @FunctionalInterface
  private interface Action {
    CleanupJob apply(String catalogId, String catalogName, long jobId, String by);
  }

  /**
   * An admin's action on one job (docs/design/0440-job-control.md): admin (401/403), then the
   * catalog (404), then the id (400); answers 200 with the job as it now is, in the listing's row
   * shape. 404 unknown job and 409 wrong state are thrown by {@link JobControl}.
   */
  private void act(Context ctx, Action action) {
    String auth = AuthorizationHeader.of(ctx);
    access.checkAdmin(auth);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    long jobId = jobId(ctx);
    // both actions leave the job PENDING: no lease to show
    ctx.status(200).json(view(new ListedJob(action.apply(catalog.row().catalogId(), catalog.name(), jobId,
        access.principal(auth)), null, false), true));
  }

  /** The {@code id} path part: a positive integer, else 400. */
  private static long jobId(Context ctx) {
    String id = ctx.pathParam("id");
    long jobId = -1;
    // ASCII digits only: Long.parseLong also reads "+1" and other scripts' digits ("１")
    if (id.matches("[1-9][0-9]{0,18}")) {
      try {
        jobId = Long.parseLong(id);
      } catch (NumberFormatException e) {
        jobId = -1;
      }
    }
    if (jobId < 1) {
      throw new IllegalArgumentException("Invalid cleanup job id: expected a positive integer, got '" + id + "'");
    }
    return jobId;
  }

  /** One job in the listing's row shape (read access); 404 for no such job in the catalog. */
  private void one(Context ctx) {
    access.check(AuthorizationHeader.of(ctx), ctx.pathParam("catalog"), false);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    long jobId = jobId(ctx);
    ctx.status(200).json(view(jobsListing.job(catalog.row().catalogId(), catalog.name(), jobId), admin(ctx)));
  }

  /**
   * The receipt of an ended job (read access; docs/design/0445-job-progress-and-receipts.md); 404
   * when it has none (not ended, unknown, another catalog's).
   */
  private void receipt(Context ctx) {
    access.check(AuthorizationHeader.of(ctx), ctx.pathParam("catalog"), false);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    long jobId = jobId(ctx);
    ctx.status(200).json(receiptView(jobsListing.receipt(catalog.row().catalogId(), catalog.name(), jobId), admin(ctx)));
  }

  /** An admin sees stored paths; anyone else through the reader's rule (docs/design/0424-what-a-reader-sees-of-paths.md). */
  private boolean admin(Context ctx) {
    return access.storeCaller(AuthorizationHeader.of(ctx)).map(Principal::isAdmin).orElse(true);
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
    NamedTargets.checkName("table or view", objectName);
    ListingCursor cursor = ListingCursor.of(pageTokens, ListingCursor.Listing.CLEANUP_JOBS, ctx.pathParam("metalake"),
        catalog.name(), namespace == null ? "" : namespace, objectName == null ? "" : objectName,
        state == null ? "" : state.name());
    Long before = before(ctx.queryParam("pageToken"), cursor);
    KeysetPage<ListedJob> jobs = jobsListing.listed(catalog.row().catalogId(), namespace, objectName, state, before, limit);
    // docs/design/0424-what-a-reader-sees-of-paths.md
    boolean admin = admin(ctx);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ListedJob job : jobs.items()) {
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
    Namespace namespace = Namespace.of(param.split(sep, -1));
    // every spelling is checked as the JSON one is: a level no namespace can have (empty, U+0000,
    // an unpaired surrogate, too long) is a 400, never a query (PostgreSQL refuses U+0000: a 500)
    EntityNames.checkNamespace(namespace);
    return namespace;
  }

  private static Namespace jsonNamespace(String param) {
    JsonNode array = JsonBody.parseOrNull(param);
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
    // an operator's abandon or rescue (docs/design/0443-abandon-and-rescue.md); null when none ended it
    m.put("endedBy", job.endedBy());
    m.put("endedAt", job.endedAt());
    m.put("endReason", job.endReason());
    return m;
  }

  /**
   * A job with its progress and lease (docs/design/0445-job-progress-and-receipts.md): the row's
   * fields, then {@code purgePath}, {@code phase} (running now), {@code purgedThrough} (last
   * finished), files and bytes deleted so far ({@code bytesLowerBound} when some sizes are unknown),
   * the lease's {@code owner} ({@code host}, {@code pid}; null when none), {@code leaseAgeMs} and
   * {@code stale}.
   */
  static Map<String, Object> view(ListedJob listed, boolean admin) {
    CleanupJob job = listed.job();
    JobActivity a = job.activity();
    Map<String, Object> m = view(job, admin);
    m.put("purgePath", a.purgePath() == null ? null : a.purgePath().name());
    m.put("phase", a.phase());
    m.put("purgedThrough", job.purgedThrough() == null ? null : job.purgedThrough().name());
    m.put("filesDeleted", a.filesDeleted());
    m.put("bytesDeleted", a.bytesDeleted());
    m.put("bytesLowerBound", a.bytesUnknown() > 0);
    Map<String, Object> owner = null;
    if (a.ownerHost() != null) {
      owner = new LinkedHashMap<>();
      owner.put("host", a.ownerHost());
      owner.put("pid", a.ownerPid());
    }
    m.put("owner", owner);
    m.put("firstClaimedAt", a.firstClaimedAt());
    m.put("leaseAgeMs", listed.leaseAgeMs());
    m.put("stale", listed.stale());
    return m;
  }

  /**
   * The public shape of a receipt (docs/design/0445-job-progress-and-receipts.md); sampled paths and
   * the error as stored for an admin, through {@link LastErrorRedaction#forReader} for anyone else.
   */
  static Map<String, Object> receiptView(CleanupReceipt r, boolean admin) {
    java.util.function.UnaryOperator<String> shown = text -> admin ? text
        : LastErrorRedaction.forReader(text, r.metadataLocation());
    JobProgress t = r.tally();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("receiptId", r.receiptId());
    m.put("jobId", r.jobId());
    m.put("objectType", r.objectType().name());
    m.put("catalog", r.catalogName());
    m.put("namespace", Arrays.asList(NamespaceNames.decode(r.namespace()).levels()));
    m.put("name", r.objectName());
    m.put("state", r.state().name());
    m.put("purgePath", r.purgePath() == null ? null : r.purgePath().name());
    m.put("createdBy", r.createdBy());
    m.put("createdAt", r.createdAt());
    m.put("firstClaimedAt", r.firstClaimedAt());
    m.put("endedAt", r.endedAt());
    m.put("durationMs", r.durationMs());
    m.put("attempts", r.attempts());
    m.put("filesDeleted", t.files());
    m.put("bytesDeleted", t.bytes());
    m.put("bytesLowerBound", t.unknownSizes() > 0);
    Map<String, Object> deleted = new LinkedHashMap<>();
    for (Map.Entry<FileKind, JobProgress.Count> e : t.deletedByKind().entrySet()) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("files", e.getValue().files());
      c.put("bytes", e.getValue().bytes());
      c.put("unknownSizes", e.getValue().unknownSizes());
      deleted.put(e.getKey().name(), c);
    }
    m.put("deleted", deleted);
    m.put("keptFiles", r.keptFiles());
    Map<String, Object> kept = new LinkedHashMap<>();
    t.kept().forEach((reason, sample) -> kept.put(reason.name(), sampleView(sample, shown)));
    m.put("kept", kept);
    m.put("leftovers", sampleView(t.leftovers(), shown));
    m.put("lastError", r.lastError() == null ? null : shown.apply(r.lastError()));
    // an operator's abandon or rescue: who and why, as on the job row (docs/design/0445-job-progress-and-receipts.md)
    m.put("endedBy", r.endedBy());
    m.put("endReason", r.endReason());
    return m;
  }

  private static Map<String, Object> sampleView(JobProgress.Sample s, java.util.function.UnaryOperator<String> shown) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", s.count());
    m.put("sample", s.sample().stream().map(shown).toList());
    return m;
  }
}
