package dev.lethe.server.auth;

import java.util.Optional;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;

/**
 * The access check of the Iceberg routes backed by the auth file's {@link Authorizer}: read for
 * GET/HEAD, write for mutations, decided on the request thread. Refusals carry the authorizer's
 * reason, which never contains a token.
 */
public final class AuthorizerAccessCheck implements AccessCheck {
  private final java.util.function.Supplier<Authorizer> authorizers;

  /** @param authorizer the principals of the auth file */
  public AuthorizerAccessCheck(Authorizer authorizer) {
    this(() -> authorizer);
  }

  /** @param authorizers the principals in use at each call (an {@link AuthFileWatch}'s, re-read on change) */
  public AuthorizerAccessCheck(java.util.function.Supplier<Authorizer> authorizers) {
    this.authorizers = authorizers;
  }

  @Override
  public void check(String authorizationHeader, String catalog, boolean write) {
    refuse(authorizers.get().authorize(authorizationHeader, catalog, write ? Access.WRITE : Access.READ));
  }

  private static void refuse(AuthDecision decision) {
    // Java 17: no pattern switch; the sealed interface has exactly these three cases
    if (decision instanceof AuthDecision.Unauthenticated u) {
      throw new NotAuthorizedException("%s", u.reason());
    }
    if (decision instanceof AuthDecision.Forbidden f) {
      throw new ForbiddenException("%s", f.reason());
    }
  }

  @Override
  public void checkAdmin(String authorizationHeader) {
    refuse(authorizers.get().authorizeAdmin(authorizationHeader));
  }

  @Override
  public void checkMetrics(String authorizationHeader) {
    refuse(authorizers.get().authorizeMetrics(authorizationHeader));
  }

  @Override
  public Optional<Principal> storeCaller(String authorizationHeader) {
    AuthDecision decision = authorizers.get().authenticate(authorizationHeader);
    refuse(decision);
    return Optional.of(((AuthDecision.Allowed) decision).principal());
  }

  @Override
  public String principal(String authorizationHeader) {
    AuthDecision decision = authorizers.get().authenticate(authorizationHeader);
    return decision instanceof AuthDecision.Allowed a ? a.principal().name() : "anonymous";
  }
}
