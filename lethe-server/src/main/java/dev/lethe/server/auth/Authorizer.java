package dev.lethe.server.auth;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether a request may proceed, from its {@code Authorization} header alone
 * (docs/auth.md): a missing or unknown token is {@link AuthDecision.Unauthenticated} (401), a known
 * principal without the privilege is {@link AuthDecision.Forbidden} (403).
 *
 * <p>A pure function of the header and the auth file: no I/O, no logging, no clock. Tokens are
 * hashed with SHA-256 and compared against every principal's hash in constant time; the clear
 * token is never stored, logged or put in a reason. Immutable and thread-safe; call it on the
 * request thread.
 */
public final class Authorizer {
  /** The principal of every request when auth is off: an admin named {@code anonymous}. */
  public static final Principal ANONYMOUS =
      new Principal("anonymous", Set.of(Principal.ANY_CATALOG), Set.of(Principal.ANY_CATALOG));

  private static final String BEARER = "bearer";

  private final boolean enabled;
  private final List<Credential> credentials;

  private record Credential(byte[] tokenSha256, Principal principal) {}

  private Authorizer(boolean enabled, List<Credential> credentials) {
    this.enabled = enabled;
    this.credentials = credentials;
  }

  /**
   * An authorizer for the principals of an auth file.
   *
   * @param file a loaded auth file ({@link AuthFileLoader#load}), not null
   */
  public static Authorizer of(AuthFile file) {
    Objects.requireNonNull(file, "Cannot create authorizer: auth file is null");
    List<Credential> credentials = new ArrayList<>();
    for (PrincipalEntry entry : file.principals()) {
      credentials.add(
          new Credential(HexFormat.of().parseHex(entry.tokenSha256()), entry.principal()));
    }
    return new Authorizer(true, List.copyOf(credentials));
  }

  /**
   * The authorizer used when no auth file is configured: auth is off and every request is {@link
   * AuthDecision.Allowed} as {@link #ANONYMOUS}, whatever its header.
   */
  public static Authorizer disabled() {
    return new Authorizer(false, List.of());
  }

  /** False for {@link #disabled()}: auth is off. */
  public boolean enabled() {
    return enabled;
  }

  /**
   * Identifies the caller without checking any catalog privilege (for routes that name no
   * catalog, such as {@code GET /iceberg/v1/config} without {@code warehouse}).
   *
   * @param authorizationHeader the raw {@code Authorization} header value, null when absent
   * @return {@link AuthDecision.Allowed} or {@link AuthDecision.Unauthenticated}
   */
  public AuthDecision authenticate(String authorizationHeader) {
    if (!enabled) {
      return new AuthDecision.Allowed(ANONYMOUS);
    }
    String token = bearerToken(authorizationHeader);
    if (token == null) {
      return new AuthDecision.Unauthenticated(
          authorizationHeader == null || authorizationHeader.isBlank()
              ? "Missing Authorization header; expected 'Authorization: Bearer <token>'"
              : "Malformed Authorization header; expected 'Authorization: Bearer <token>'");
    }
    byte[] hash = TokenHash.sha256(token);
    Principal found = null;
    // no early exit: every entry is compared so timing does not tell which one matched
    for (Credential credential : credentials) {
      if (TokenHash.matches(credential.tokenSha256(), hash) && found == null) {
        found = credential.principal();
      }
    }
    if (found == null) {
      return new AuthDecision.Unauthenticated("Unknown bearer token");
    }
    return new AuthDecision.Allowed(found);
  }

  /**
   * Decides whether the caller may perform {@code access} on {@code catalog}. Write access implies
   * read access.
   *
   * @param authorizationHeader the raw {@code Authorization} header value, null when absent
   * @param catalog the catalog the request addresses, not null
   * @param access what the request does, not null
   * @return {@link AuthDecision.Allowed}, {@link AuthDecision.Unauthenticated} (401) or {@link
   *     AuthDecision.Forbidden} (403)
   */
  public AuthDecision authorize(String authorizationHeader, String catalog, Access access) {
    Objects.requireNonNull(catalog, "Cannot authorize: catalog is null");
    Objects.requireNonNull(access, "Cannot authorize: access is null");
    AuthDecision identity = authenticate(authorizationHeader);
    if (!(identity instanceof AuthDecision.Allowed allowed)) {
      return identity;
    }
    Principal principal = allowed.principal();
    if (principal.may(catalog, access)) {
      return allowed;
    }
    return new AuthDecision.Forbidden(
        principal,
        "Principal '" + principal.name() + "' has no " + access.name().toLowerCase(Locale.ROOT)
            + " access to catalog '" + catalog + "'");
  }

  /**
   * Decides whether the caller is an admin ({@code "*"} in both lists), for operations that span
   * catalogs.
   *
   * @param authorizationHeader the raw {@code Authorization} header value, null when absent
   * @return {@link AuthDecision.Allowed}, {@link AuthDecision.Unauthenticated} (401) or {@link
   *     AuthDecision.Forbidden} (403)
   */
  public AuthDecision authorizeAdmin(String authorizationHeader) {
    AuthDecision identity = authenticate(authorizationHeader);
    if (identity instanceof AuthDecision.Allowed allowed && !isAdmin(allowed.principal())) {
      return new AuthDecision.Forbidden(
          allowed.principal(), "Principal '" + allowed.principal().name() + "' is not an admin");
    }
    return identity;
  }

  /**
   * Decides whether the caller may scrape {@code GET /metrics} (docs/design/0410-operations.md §2):
   * any principal with a read grant on something, a catalog in {@code read} or {@code write} or a
   * store namespace in {@code store.read}. A principal with only {@code store.write} has none.
   *
   * @param authorizationHeader the raw {@code Authorization} header value, null when absent
   * @return {@link AuthDecision.Allowed}, {@link AuthDecision.Unauthenticated} (401) or {@link
   *     AuthDecision.Forbidden} (403)
   */
  public AuthDecision authorizeMetrics(String authorizationHeader) {
    AuthDecision identity = authenticate(authorizationHeader);
    if (identity instanceof AuthDecision.Allowed allowed && !allowed.principal().readsAnything()) {
      return new AuthDecision.Forbidden(allowed.principal(), "Principal '" + allowed.principal().name()
          + "' may not read metrics: that needs a read grant on a catalog or a store namespace");
    }
    return identity;
  }

  /** Whether {@code principal} is an admin: {@code "*"} in both its read and its write list. */
  public static boolean isAdmin(Principal principal) {
    return principal.isAdmin();
  }

  /**
   * Extracts the token of an {@code Authorization: Bearer <token>} header: the scheme is
   * case-insensitive, separated from the token by spaces; the token is the rest of the value,
   * without surrounding spaces, and must contain no space.
   *
   * @param authorizationHeader the raw header value, may be null
   * @return the token, or null when the header is absent, not a bearer header, or has no token
   */
  public static String bearerToken(String authorizationHeader) {
    if (authorizationHeader == null) {
      return null;
    }
    String value = authorizationHeader.strip();
    int space = value.indexOf(' ');
    if (space < 0 || !value.substring(0, space).toLowerCase(Locale.ROOT).equals(BEARER)) {
      return null;
    }
    String token = value.substring(space + 1).strip();
    if (token.isEmpty() || token.chars().anyMatch(Character::isWhitespace)) {
      return null;
    }
    return token;
  }

  /** Names no token or hash. */
  @Override
  public String toString() {
    return "Authorizer{enabled=" + enabled + ", principals=" + credentials.size() + "}";
  }
}
