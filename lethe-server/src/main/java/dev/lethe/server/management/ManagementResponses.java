package dev.lethe.server.management;

import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.server.http.ApiException;
import io.javalin.http.Context;

/**
 * What every management route under {@code /api/metalakes/{m}/catalogs/{c}/…} shares
 * (docs/design/0200-catalog-architecture.md "HTTP surface"): the metalake and catalog lookups,
 * answered 404. Errors are {@code {code, type, message}}, written by {@link
 * dev.lethe.server.http.ErrorMapper}.
 */
final class ManagementResponses {
  private ManagementResponses() {}

  /**
   * The catalog named by the path.
   *
   * @throws ApiException 404 {@code NoSuchMetalakeException} or {@code NoSuchCatalogException}
   */
  static LetheCatalog catalog(Context ctx, IcebergCatalogs catalogs) {
    String metalake = ctx.pathParam("metalake");
    String catalogName = ctx.pathParam("catalog");
    if (!metalake.equals(catalogs.metalake())) {
      throw new ApiException(404, "NoSuchMetalakeException", "Metalake does not exist: " + metalake);
    }
    return catalogs.catalog(catalogName)
        .orElseThrow(() -> new ApiException(404, "NoSuchCatalogException", "Catalog does not exist: " + catalogName));
  }
}
