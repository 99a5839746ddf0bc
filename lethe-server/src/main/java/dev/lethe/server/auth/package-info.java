/**
 * Bearer-token authentication and per-catalog authorization for the HTTP server (docs/auth.md;
 * docs/design/0200-catalog-architecture.md "Daemon and auth": the same principal file guards the catalog and the store).
 *
 * <ul>
 *   <li>{@link dev.lethe.server.auth.AuthFileLoader} reads and validates the auth file ({@code
 *       lethe.auth.file}, YAML or JSON) into an {@link dev.lethe.server.auth.AuthFile};
 *   <li>{@link dev.lethe.server.auth.Authorizer} decides, as a pure function of the {@code
 *       Authorization} header, the catalog and the {@link dev.lethe.server.auth.Access}, an
 *       {@link dev.lethe.server.auth.AuthDecision}: allowed, 401 or 403;
 *   <li>{@link dev.lethe.server.auth.TokenHash} is the SHA-256 the file stores instead of tokens.
 * </ul>
 *
 * <p>No class of this package logs, stores or returns a clear token.
 */
package dev.lethe.server.auth;
