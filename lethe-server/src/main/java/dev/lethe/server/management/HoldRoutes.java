package dev.lethe.server.management;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.jobs.Holds;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.http.HoldView;
import dev.lethe.server.http.JsonBody;
import dev.lethe.server.http.ReadRoutes;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Legal hold routes (docs/design/0444-legal-holds.md), errors as {@code {code, type, message}} JSON:
 *
 * <ul>
 *   <li>{@code GET /api/metalakes/{m}/catalogs/{c}/holds[?include=released]} (read on the catalog):
 *       200 {@code {"holds": [hold…]}} in the {@link HoldView} shape; the holds not released, or with
 *       {@code include=released} every hold ever placed (the audit).
 *   <li>{@code PUT …/holds} (admin), body {@code {"kind": "table|namespace", "namespace": ["a", …],
 *       "name": "t" (not for a namespace), "reason": "…" (required), "expiresAt": ms since epoch or an
 *       ISO-8601 instant (optional)}}: 200 with the hold as stored (placing it again replaces it; the
 *       old one is kept as released) and {@code runningPurges}: the ids of covered table purges that
 *       were {@code RUNNING} as it was placed (they may have deleted files before it; empty: none did
 *       after it).
 *   <li>{@code DELETE …/holds?kind=&namespace=&name=} (admin; {@code namespace} levels joined by
 *       U+001F or '.'): 200 {@code {"released": [hold…]}}, or 404 when no hold is placed on it.
 * </ul>
 *
 * 400 a malformed body or parameter, 401/403 not allowed, 404 unknown metalake or catalog. The
 * object need not exist: a hold is by name. The body is read strictly (one JSON value, no repeated
 * key, no unpaired surrogate) and the names are checked as an entry's names are
 * (docs/design/0400-strict-request-input.md), so a name no entry can have is a 400, never stored.
 */
public final class HoldRoutes {
  /** Path of the routes. */
  public static final String PATH = "/api/metalakes/{metalake}/catalogs/{catalog}/holds";
  private static final String NOUN = "hold";
  private static final Set<String> FIELDS = Set.of("kind", "namespace", "name", "reason", "expiresAt");

  private final IcebergCatalogs catalogs;
  private final Holds holds;
  private final AccessCheck access;

  public HoldRoutes(IcebergCatalogs catalogs, Holds holds, AccessCheck access) {
    this.catalogs = catalogs;
    this.holds = holds;
    this.access = access;
  }

  /** Registers the routes. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, PATH, this::list);
    routes.put(PATH, this::place);
    routes.delete(PATH, this::release);
  }

  private void list(Context ctx) {
    access.check(AuthorizationHeader.of(ctx), ctx.pathParam("catalog"), false);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    String include = ctx.queryParam("include");
    if (include != null && !include.equals("released")) {
      throw new IllegalArgumentException("Invalid include: expected 'released', got '" + include + "'");
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (HoldDao.Hold h : holds.list(catalog.row().catalogId(), include != null)) {
      rows.add(HoldView.of(h));
    }
    ctx.status(200).json(Map.of("holds", rows));
  }

  private void place(Context ctx) {
    String auth = AuthorizationHeader.of(ctx);
    access.checkAdmin(auth);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    JsonNode body = JsonBody.object(ctx, NOUN, FIELDS);
    HoldDao.Kind kind = kind(JsonBody.text(body, "kind", true, NOUN));
    String namespace = NamedTargets.namespace(body, NOUN);
    String name = JsonBody.text(body, "name", false, NOUN);
    String reason = JsonBody.text(body, "reason", true, NOUN);
    if (kind == HoldDao.Kind.TABLE) {
      NamedTargets.checkName("table", name);
    }
    NamedTargets.checkReason(reason, NOUN);
    Holds.Placed placed = holds.place(catalog.row(), kind, namespace,
        name == null ? "" : name, access.principal(auth), reason, expiresAt(body.get("expiresAt")));
    Map<String, Object> answer = HoldView.of(placed.hold());
    // a covered purge already running may have deleted files before the hold (docs/design/0444-legal-holds.md)
    answer.put("runningPurges", placed.runningPurges());
    ctx.status(200).json(answer);
  }

  private void release(Context ctx) {
    String auth = AuthorizationHeader.of(ctx);
    access.checkAdmin(auth);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    HoldDao.Kind kind = kind(ctx.queryParam("kind"));
    String namespace = NamedTargets.queryNamespace(ctx, NOUN);
    String name = ctx.queryParam("name");
    NamedTargets.checkName(kind.name().toLowerCase(java.util.Locale.ROOT), name);
    List<HoldDao.Hold> released = holds.release(catalog.row(), kind, namespace, name == null ? "" : name,
        access.principal(auth));
    if (released.isEmpty()) {
      throw NamedTargets.none(NOUN, kind, ctx, name);
    }
    ctx.status(200).json(Map.of("released", released.stream().map(HoldView::of).toList()));
  }

  /** {@code expiresAt}: absent or null, a whole number of ms since epoch, or an ISO-8601 instant. */
  static Long expiresAt(JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (n.isIntegralNumber() && n.canConvertToLong()) {
      return n.asLong();
    }
    if (n.isTextual()) {
      try {
        return Instant.parse(n.asText()).toEpochMilli();
      } catch (DateTimeParseException | ArithmeticException e) {
        // falls through to the refusal
      }
    }
    throw new IllegalArgumentException("Invalid hold: expiresAt must be ms since epoch or an ISO-8601 instant "
        + "(e.g. 2027-01-31T00:00:00Z)");
  }

  private static HoldDao.Kind kind(String kind) {
    return NamedTargets.kind(kind, HoldDao.Kind.values(), NOUN, "table or namespace");
  }
}
