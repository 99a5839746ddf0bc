package dev.lethe.server.auth;

/**
 * Decides, on the request thread and before any catalog call, whether a request may read or write
 * a catalog. It throws {@link org.apache.iceberg.exceptions.NotAuthorizedException} (401) or {@link
 * org.apache.iceberg.exceptions.ForbiddenException} (403) to refuse; returning means allowed.
 */
@FunctionalInterface
public interface AccessCheck {
  /** Allows everything: auth off. */
  AccessCheck ALLOW_ALL = (authorization, catalog, write) -> {};

  /**
   * @param authorizationHeader the raw {@code Authorization} header, null if absent; never log it
   * @param catalog the catalog named by the request (the REST {@code prefix} or {@code warehouse})
   * @param write true for mutations, false for reads (GET, HEAD)
   */
  void check(String authorizationHeader, String catalog, boolean write);

  /**
   * Decides whether the caller is an admin ({@code "*"} in both its read and write lists), for
   * operations reserved to admins such as the soft deletion's purge-now. Throws {@link
   * org.apache.iceberg.exceptions.NotAuthorizedException} (401) or {@link
   * org.apache.iceberg.exceptions.ForbiddenException} (403) to refuse. With auth off every caller is
   * the admin {@code anonymous}.
   *
   * @param authorizationHeader the raw {@code Authorization} header, null if absent; never log it
   */
  default void checkAdmin(String authorizationHeader) {}

  /**
   * Decides whether the caller may scrape {@code GET /metrics}: any principal with a read grant
   * (docs/design/0410-operations.md §2). Throws {@link
   * org.apache.iceberg.exceptions.NotAuthorizedException} (401) or {@link
   * org.apache.iceberg.exceptions.ForbiddenException} (403) to refuse; allows everyone when auth is off.
   *
   * @param authorizationHeader the raw {@code Authorization} header, null if absent; never log it
   */
  default void checkMetrics(String authorizationHeader) {}

  /**
   * Identifies the caller of a store route (docs/design/0105-store-grants.md): throws {@link
   * org.apache.iceberg.exceptions.NotAuthorizedException} (401) without a valid token; returns the
   * principal, or empty when auth is off. The store's grants are then decided by {@link
   * dev.lethe.server.auth.StoreGrants}.
   *
   * @param authorizationHeader the raw {@code Authorization} header, null if absent; never log it
   */
  default java.util.Optional<dev.lethe.server.auth.Principal> storeCaller(String authorizationHeader) {
    return java.util.Optional.empty();
  }

  /**
   * The name of the caller, for audit columns such as a cleanup job's {@code created_by}; call
   * after {@link #check} allowed the request. {@code anonymous} when auth is off.
   */
  default String principal(String authorizationHeader) {
    return "anonymous";
  }
}
