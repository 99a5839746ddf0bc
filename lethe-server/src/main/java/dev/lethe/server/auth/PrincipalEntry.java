package dev.lethe.server.auth;

import java.util.Objects;

/**
 * One principal of the auth file with the hash of its token.
 *
 * @param principal name and catalog lists, not null
 * @param tokenSha256 lower-case hex SHA-256 of the principal's token ({@link TokenHash#sha256Hex})
 */
public record PrincipalEntry(Principal principal, String tokenSha256) {
  /** Rejects a null principal and a hash that is not 64 lower-case hex characters. */
  public PrincipalEntry {
    Objects.requireNonNull(principal, "Cannot create principal entry: principal is null");
    if (!TokenHash.isSha256Hex(tokenSha256)) {
      throw new IllegalArgumentException(
          "Cannot create principal entry '" + principal.name()
              + "': token-sha256 must be 64 lower-case hex characters");
    }
  }

  /** Omits the hash, so log lines and error messages never carry it. */
  @Override
  public String toString() {
    return "PrincipalEntry{" + principal + "}";
  }
}
