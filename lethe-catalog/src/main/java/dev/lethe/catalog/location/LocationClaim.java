package dev.lethe.catalog.location;

import java.util.Objects;

/**
 * One row of {@code lethe_location_claim}: an owner holds a root (docs/design/0001-purge-confinement-
 * and-ownership.md §3).
 *
 * @param claimId the row id
 * @param owner who holds it, not null
 * @param root the claimed location (a table root, or a view's metadata file), not null
 */
public record LocationClaim(long claimId, ClaimOwner owner, LocationPath root) {
  public LocationClaim {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(root, "root");
  }
}
