package dev.lethe.server.auth;

import java.util.Objects;
import java.util.Optional;

/**
 * Whose name a store write records (docs/design/0105-store-grants.md): authorship cannot be
 * forged. A pure function, called by the store routes on every consumer put, delete and raw put.
 */
public final class StoreAuthorship {
  private StoreAuthorship() {}

  /**
   * The author to record for a consumer put or delete.
   *
   * @param caller the authenticated principal, empty when auth is off
   * @param claimed the author the request names ({@code meta.author} of a put draft, {@code author}
   *     of a delete body), or empty
   * @return a non-admin's own name whatever it claims; an admin's claim, or its own name when it
   *     claims none; with auth off the claim as sent (empty stays empty, so a tombstone keeps the
   *     record's last author)
   */
  public static Optional<String> consumerAuthor(Optional<Principal> caller, Optional<String> claimed) {
    Objects.requireNonNull(caller, "caller");
    Objects.requireNonNull(claimed, "claimed");
    if (caller.isEmpty()) {
      return claimed;
    }
    Principal p = caller.get();
    if (!p.isStoreAdmin()) {
      return Optional.of(p.name());
    }
    return claimed.isPresent() ? claimed : Optional.of(p.name());
  }

  /**
   * The author to record for a raw put. Raw puts are never re-stamped, except for authorship: a
   * non-admin's record is stamped with its own name; an admin (the replication credential) and a
   * server without auth keep the record's author as sent, even none.
   *
   * @param caller the authenticated principal, empty when auth is off
   * @param recorded the record's {@code meta.author}, or empty
   */
  public static Optional<String> rawAuthor(Optional<Principal> caller, Optional<String> recorded) {
    Objects.requireNonNull(caller, "caller");
    Objects.requireNonNull(recorded, "recorded");
    if (caller.isEmpty() || caller.get().isStoreAdmin()) {
      return recorded;
    }
    return Optional.of(caller.get().name());
  }
}
