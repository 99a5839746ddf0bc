package dev.lethe.server.auth;

import java.util.Objects;

/**
 * The outcome of an authorization check (docs/auth.md). Callers switch over it:
 *
 * <pre>{@code
 * switch (authorizer.authorize(AuthorizationHeader.of(ctx), catalog, Access.WRITE)) {
 *   case AuthDecision.Allowed a -> handle(a.principal());
 *   case AuthDecision.Unauthenticated u -> respond(u.httpStatus(), u.reason()); // 401
 *   case AuthDecision.Forbidden f -> respond(f.httpStatus(), f.reason());       // 403
 * }
 * }</pre>
 *
 * <p>Reasons are safe to return to the client and to log: they never contain a token.
 */
public sealed interface AuthDecision {
  /** The request may proceed on behalf of {@code principal}. */
  record Allowed(Principal principal) implements AuthDecision {
    /** Rejects a null principal. */
    public Allowed {
      Objects.requireNonNull(principal, "Cannot allow: principal is null");
    }
  }

  /**
   * No token, a malformed header, or a token no principal has: HTTP 401, sent with the header
   * {@code WWW-Authenticate: }{@value #CHALLENGE} (RFC 6750).
   */
  record Unauthenticated(String reason) implements AuthDecision {
    /** The HTTP status for this decision. */
    public static final int HTTP_STATUS = 401;

    /** Value of the {@code WWW-Authenticate} response header that goes with a 401. */
    public static final String CHALLENGE = "Bearer realm=\"lethe\"";

    /** Rejects a null reason. */
    public Unauthenticated {
      Objects.requireNonNull(reason, "Cannot deny: reason is null");
    }

    /** Always {@value #HTTP_STATUS}. */
    public int httpStatus() {
      return HTTP_STATUS;
    }
  }

  /** A known principal without the needed privilege: HTTP 403. */
  record Forbidden(Principal principal, String reason) implements AuthDecision {
    /** The HTTP status for this decision. */
    public static final int HTTP_STATUS = 403;

    /** Rejects null arguments. */
    public Forbidden {
      Objects.requireNonNull(principal, "Cannot forbid: principal is null");
      Objects.requireNonNull(reason, "Cannot forbid: reason is null");
    }

    /** Always {@value #HTTP_STATUS}. */
    public int httpStatus() {
      return HTTP_STATUS;
    }
  }
}
