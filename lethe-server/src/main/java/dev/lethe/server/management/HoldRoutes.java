package dev.lethe.server.management;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.iceberg.WellFormedText;
import dev.lethe.catalog.jobs.Holds;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.http.HoldView;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.http.RequestBody;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;

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
  private static final ObjectReader JSON = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
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
    JsonNode body;
    try {
      body = JSON.readTree(RequestBody.read(ctx));
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid hold: the body is not JSON");
    }
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("Invalid hold: expected a JSON object");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw new IllegalArgumentException("Invalid hold: unknown field '" + f + "'");
      }
    }
    HoldDao.Kind kind = kind(text(body, "kind", true));
    JsonNode ns = body.get("namespace");
    if (ns == null || !ns.isArray() || ns.isEmpty()) {
      throw new IllegalArgumentException("Invalid hold: namespace must be a non-empty array of strings");
    }
    List<String> levels = new ArrayList<>();
    for (JsonNode level : ns) {
      if (!level.isTextual() || level.asText().isEmpty()) {
        throw new IllegalArgumentException("Invalid hold: namespace must be a non-empty array of strings");
      }
      levels.add(level.asText());
    }
    String name = text(body, "name", false);
    String reason = text(body, "reason", true);
    // docs/design/0400-strict-request-input.md: a name no entry can have is refused, not stored
    EntityNames.checkNamespace(Namespace.of(levels.toArray(new String[0])));
    if (name != null && !name.isEmpty() && kind == HoldDao.Kind.TABLE) {
      EntityNames.check("table", name);
    }
    WellFormedText.check("reason", reason);
    if (reason.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("Invalid hold: reason contains U+0000");
    }
    Holds.Placed placed = holds.place(catalog.row().catalogId(), kind, String.join(NamespaceNames.SEPARATOR, levels),
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
    String nsParam = ctx.queryParam("namespace");
    if (nsParam == null || nsParam.isEmpty()) {
      throw new IllegalArgumentException("Invalid hold: the namespace parameter is required");
    }
    String name = ctx.queryParam("name");
    String namespace = NamespaceNames.encode(CleanupRoutes.parseNamespace(nsParam));
    List<HoldDao.Hold> released = holds.release(catalog.row().catalogId(), kind, namespace, name == null ? "" : name,
        access.principal(auth));
    if (released.isEmpty()) {
      throw new org.apache.iceberg.exceptions.NotFoundException("No hold on %s %s%s", kind.name().toLowerCase(Locale.ROOT),
          nsParam, name == null || name.isEmpty() ? "" : "." + name);
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
    if (kind != null) {
      for (HoldDao.Kind k : HoldDao.Kind.values()) {
        if (k.name().equalsIgnoreCase(kind)) {
          return k;
        }
      }
    }
    throw new IllegalArgumentException("Invalid hold kind: expected table or namespace, got " + kind);
  }

  private static String text(JsonNode body, String field, boolean required) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw new IllegalArgumentException("Invalid hold: " + field + " is required");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException("Invalid hold: " + field + " must be a string");
    }
    return n.asText();
  }
}
