package dev.lethe.server.management;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.entity.Protections;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.iceberg.WellFormedText;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.http.ProtectionView;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.http.RequestBody;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;

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
  private static final ObjectReader JSON = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Set<String> FIELDS = Set.of("kind", "namespace", "name", "reason");

  private final IcebergCatalogs catalogs;
  private final Protections protections;
  private final AccessCheck access;

  public ProtectionRoutes(IcebergCatalogs catalogs, Protections protections, AccessCheck access) {
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
    JsonNode body;
    try {
      body = JSON.readTree(RequestBody.read(ctx));
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid protection: the body is not JSON");
    }
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("Invalid protection: expected a JSON object");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw new IllegalArgumentException("Invalid protection: unknown field '" + f + "'");
      }
    }
    ProtectionDao.Kind kind = kind(text(body, "kind", true));
    JsonNode ns = body.get("namespace");
    if (ns == null || !ns.isArray() || ns.isEmpty()) {
      throw new IllegalArgumentException("Invalid protection: namespace must be a non-empty array of strings");
    }
    List<String> levels = new ArrayList<>();
    for (JsonNode level : ns) {
      if (!level.isTextual() || level.asText().isEmpty()) {
        throw new IllegalArgumentException("Invalid protection: namespace must be a non-empty array of strings");
      }
      levels.add(level.asText());
    }
    String name = text(body, "name", false);
    String reason = text(body, "reason", false);
    // docs/design/0400-strict-request-input.md: a name no entry can have is refused, not stored
    EntityNames.checkNamespace(Namespace.of(levels.toArray(new String[0])));
    if (name != null && !name.isEmpty() && kind != ProtectionDao.Kind.NAMESPACE) {
      EntityNames.check(kind.name().toLowerCase(Locale.ROOT), name);
    }
    if (reason != null) {
      WellFormedText.check("reason", reason);
      if (reason.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("Invalid protection: reason contains U+0000");
      }
    }
    Protections.Protected p = protections.protect(catalog.row().catalogId(), kind,
        String.join(NamespaceNames.SEPARATOR, levels), name == null ? "" : name, access.principal(auth),
        reason == null ? "" : reason);
    Map<String, Object> answer = ProtectionView.of(p.protection());
    answer.put("exists", p.exists());
    ctx.status(200).json(answer);
  }

  private void unprotect(Context ctx) {
    access.checkAdmin(AuthorizationHeader.of(ctx));
    LetheCatalog catalog = ManagementResponses.catalog(ctx, catalogs);
    ProtectionDao.Kind kind = kind(ctx.queryParam("kind"));
    String nsParam = ctx.queryParam("namespace");
    if (nsParam == null || nsParam.isEmpty()) {
      throw new IllegalArgumentException("Invalid protection: the namespace parameter is required");
    }
    String name = ctx.queryParam("name");
    String namespace = NamespaceNames.encode(CleanupRoutes.parseNamespace(nsParam));
    if (!protections.unprotect(catalog.row().catalogId(), kind, namespace, name == null ? "" : name)) {
      throw new org.apache.iceberg.exceptions.NotFoundException("No protection on %s %s%s", kind.name().toLowerCase(Locale.ROOT),
          nsParam, name == null || name.isEmpty() ? "" : "." + name);
    }
    ctx.status(204);
  }

  private static ProtectionDao.Kind kind(String kind) {
    if (kind != null) {
      for (ProtectionDao.Kind k : ProtectionDao.Kind.values()) {
        if (k.name().equalsIgnoreCase(kind)) {
          return k;
        }
      }
    }
    throw new IllegalArgumentException("Invalid protection kind: expected table, view or namespace, got " + kind);
  }

  private static String text(JsonNode body, String field, boolean required) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw new IllegalArgumentException("Invalid protection: " + field + " is required");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException("Invalid protection: " + field + " must be a string");
    }
    return n.asText();
  }
}
