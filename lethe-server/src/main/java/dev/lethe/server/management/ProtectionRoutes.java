package dev.lethe.server.management;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.drop.ProtectionControl;
import dev.lethe.catalog.entity.Protections;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.http.JsonBody;
import dev.lethe.server.http.ProtectionView;
import dev.lethe.server.http.ReadRoutes;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Drop protection routes (docs/design/0441-drop-protection.md), errors as {@code {code, type,
 * message}} JSON:
 *
 * <ul>
 *   <li>{@code GET /api/metalakes/{m}/catalogs/{c}/protections} (read on the catalog): 200 {@code
 *       {"protections": [protection…]}}, each in the {@link ProtectionView} shape.
 *   <li>{@code PUT …/protections} (admin), body {@code {"kind": "table|view|namespace", "namespace":
 *       ["a", …], "name": "t" (not for a namespace), "reason": "…" (optional)}}: 200 with the
 *       protection as stored (setting it again replaces setter, time and reason) and {@code
 *       "exists": true|false}, whether the object it names exists now.
 *   <li>{@code DELETE …/protections?kind=&namespace=&name=} (admin; {@code namespace} a JSON array
 *       of the levels, the exact spelling, or levels joined by U+001F or '.'): 204, or 404 when there
 *       was no such protection.
 * </ul>
 *
 * 400 a malformed body or parameter, 401/403 not allowed, 404 unknown metalake or catalog. The
 * object need not exist: a protection is by name. The body is read strictly (one JSON value, no
 * repeated key, no unpaired surrogate) and the names are checked as an entry's names are
 * (docs/design/0400-strict-request-input.md), so a name no entry can have is a 400, never stored.
 */
public final class ProtectionRoutes {
  /** Path of the routes. */
  public static final String PATH = "/api/metalakes/{metalake}/catalogs/{catalog}/protections";
  private static final String NOUN = "protection";
  private static final Set<String> FIELDS = Set.of("kind", "namespace", "name", "reason");

  private final IcebergCatalogs catalogs;
  private final ProtectionControl protections;
  private final AccessCheck access;

  public ProtectionRoutes(IcebergCatalogs catalogs, ProtectionControl protections, AccessCheck access) {
    this.catalogs = catalogs;
    this.protections = protections;
    this.access = access;
  }

  /** Registers the routes. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, PATH, this::list);
    routes.put(PATH, this::protect);
    routes.delete(PATH, this::unprotect);
  }

  private void list(Context ctx) {
    access.check(AuthorizationHeader.of(ctx), ctx.pathParam("catalog"), false);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ProtectionDao.Protection p : protections.list(catalog.row().catalogId())) {
      rows.add(ProtectionView.of(p));
    }
    ctx.status(200).json(Map.of("protections", rows));
  }

  private void protect(Context ctx) {
    String auth = AuthorizationHeader.of(ctx);
    access.checkAdmin(auth);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    JsonNode body = JsonBody.object(ctx, NOUN, FIELDS);
    ProtectionDao.Kind kind = kind(JsonBody.text(body, "kind", true, NOUN));
    String namespace = NamedTargets.namespace(body, NOUN);
    String name = JsonBody.text(body, "name", false, NOUN);
    String reason = JsonBody.text(body, "reason", false, NOUN);
    if (kind != ProtectionDao.Kind.NAMESPACE) {
      NamedTargets.checkName(kind.name().toLowerCase(Locale.ROOT), name);
    }
    NamedTargets.checkReason(reason, NOUN);
    Protections.Protected p = protections.protect(catalog.row(), kind, namespace,
        name == null ? "" : name, access.principal(auth), reason == null ? "" : reason);
    Map<String, Object> answer = ProtectionView.of(p.protection());
    answer.put("exists", p.exists());
    ctx.status(200).json(answer);
  }

  private void unprotect(Context ctx) {
    String auth = AuthorizationHeader.of(ctx);
    access.checkAdmin(auth);
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    ProtectionDao.Kind kind = kind(ctx.queryParam("kind"));
    String namespace = NamedTargets.queryNamespace(ctx, NOUN);
    String name = ctx.queryParam("name");
    NamedTargets.checkName(kind.name().toLowerCase(java.util.Locale.ROOT), name);
    if (protections.unprotect(catalog.row(), kind, namespace, name == null ? "" : name, access.principal(auth)).isEmpty()) {
      throw NamedTargets.none(NOUN, kind, ctx, name);
    }
    ctx.status(204);
  }

  private static ProtectionDao.Kind kind(String kind) {
    return NamedTargets.kind(kind, ProtectionDao.Kind.values(), NOUN, "table, view or namespace");
  }
}
