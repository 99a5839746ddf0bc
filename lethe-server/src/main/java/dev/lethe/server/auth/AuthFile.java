package dev.lethe.server.auth;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The validated content of an auth file: its principals, each with a distinct name and a
 * distinct token hash.
 *
 * @param source the file it was read from (for messages), not null
 * @param principals at least one entry
 */
public record AuthFile(Path source, List<PrincipalEntry> principals) {
  /** Copies the list; rejects an empty list and duplicate names or token hashes. */
  public AuthFile {
    Objects.requireNonNull(source, "Cannot create auth file: source is null");
    principals = List.copyOf(principals);
    if (principals.isEmpty()) {
      throw new IllegalArgumentException("Invalid auth file " + source + ": no principals");
    }
    Set<String> names = new HashSet<>();
    Set<String> hashes = new HashSet<>();
    for (PrincipalEntry entry : principals) {
      if (!names.add(entry.principal().name())) {
        throw new IllegalArgumentException(
            "Invalid auth file " + source + ": principal '" + entry.principal().name() + "' is defined twice");
      }
      if (!hashes.add(entry.tokenSha256())) {
        throw new IllegalArgumentException(
            "Invalid auth file " + source + ": principal '" + entry.principal().name()
                + "' has the same token-sha256 as another principal");
      }
    }
  }
}
