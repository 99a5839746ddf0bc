package dev.lethe.server.management;

import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.server.LetheServer;
import dev.lethe.server.auth.AuthDecision;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;

/**
 * What every management route under {@code /api/metalakes/{m}/catalogs/{c}/…} shares (docs/design/0200-catalog-architecture.md
 * "HTTP surface"): errors as {@code {code, type, message}} JSON, the access check answered 401/403
 * in that shape, and the metalake and catalog lookups answered 404.
 */
public final class ManagementResponses {
  /** Path prefix of every management route: errors under it are {@code {code, type, message}}. */
  public static final String PREFIX = "/api/";

  private ManagementResponses() {}

  /** Writes an error body {@code {code, type, message}} with status {@code code}. */
  public static void error(Context ctx, int code, String type, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("code", code);
    body.put("type", type);
    body.put("message", message);
    ctx.attribute(LetheServer.ERROR_WRITTEN, Boolean.TRUE); // the server's 404 fallback must not replace it
    ctx.status(code).json(body);
  }

  /** A bad request: 400 {@code IllegalArgumentException}. */
  static void badRequest(Context ctx, String message) {
    error(ctx, 400, "IllegalArgumentException", message);
  }

  /**
   * Runs an access check; a refusal is written as 401 (with {@code WWW-Authenticate}) or 403.
   *
   * @param check throws {@link NotAuthorizedException} or {@link ForbiddenException} to refuse
   * @return true if allowed
   */
  static boolean allowed(Context ctx, Runnable check) {
    try {
      check.run();
      return true;
    } catch (NotAuthorizedException e) {
      ctx.header("WWW-Authenticate", AuthDecision.Unauthenticated.CHALLENGE);
      error(ctx, 401, "NotAuthorizedException", e.getMessage());
    } catch (ForbiddenException e) {
      error(ctx, 403, "ForbiddenException", e.getMessage());
    }
    return false;
  }

  /**
   * The catalog named by the path, or empty after writing 404 for an unknown metalake or catalog.
   */
  static Optional<LetheCatalog> catalog(Context ctx, IcebergCatalogs catalogs) {
    String metalake = ctx.pathParam("metalake");
    String catalogName = ctx.pathParam("catalog");
    if (!metalake.equals(catalogs.metalake())) {
      error(ctx, 404, "NoSuchMetalakeException", "Metalake does not exist: " + metalake);
      return Optional.empty();
    }
    Optional<LetheCatalog> catalog = catalogs.catalog(catalogName);
    if (catalog.isEmpty()) {
      error(ctx, 404, "NoSuchCatalogException", "Catalog does not exist: " + catalogName);
    }
    return catalog;
  }
}
