package dev.lethe.catalog.location;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The overlap decision of rule 2 (one live owner; docs/design/0001-purge-confinement-and-ownership.md
 * §3) as pure functions, and the hashes the database indexes so that the candidates of a decision
 * are found by index lookups on every vendor.
 *
 * <p>Two locations overlap when either contains the other ({@link LocationPath#overlaps}): a table at
 * {@code /wh/t} overlaps a claim on {@code /wh/t}, {@code /wh} or {@code /wh/t/data}, however either
 * was spelled. Candidates come from the database by hash ({@link #hash}: a claim whose root is an
 * ancestor-or-self of a requested root; {@link #prefixHashes}: a claim one of whose ancestors-or-self
 * is a requested root); {@link #conflicts} then decides on the normalised paths, so a hash collision
 * can never produce a conflict or hide one.
 */
public final class ClaimOverlap {
  private ClaimOverlap() {}

  /** A requested root and another owner's claim that overlaps it. */
  public record Conflict(LocationPath requested, LocationClaim other) {}

  /**
   * The SHA-256 of a location's canonical string ({@link LocationPath#toString()}), as 64 lower-case
   * hex characters: the indexed key of {@code root_hash} and {@code prefix_hash}.
   */
  public static String hash(LocationPath location) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(location.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /**
   * The hashes of a root and of every ancestor (root of the file system or bucket first): the
   * {@code prefix_hash} rows stored with a claim, and the {@code root_hash} values a new root looks
   * up to find claims that contain it.
   */
  public static List<String> prefixHashes(LocationPath root) {
    List<String> out = new ArrayList<>();
    for (LocationPath p : root.selfAndAncestors()) {
      out.add(hash(p));
    }
    return out;
  }

  /**
   * The claims of other owners that overlap a requested root.
   *
   * @param requested the roots an owner wants to hold, not null
   * @param self the owner asking; its own claims never conflict; not null
   * @param candidates claims found by hash (may include non-overlapping ones after a collision, and
   *     claims of {@code self}), not null
   * @return the conflicts, by requested root then by claim id; empty if none
   */
  public static List<Conflict> conflicts(Collection<LocationPath> requested, ClaimOwner self,
      Collection<LocationClaim> candidates) {
    return conflicts(requested, Set.of(self), candidates);
  }

  /**
   * As {@link #conflicts(Collection, ClaimOwner, Collection)}, ignoring the claims of every owner in
   * {@code selves} (e.g. a table and the job its claims are handed to).
   */
  public static List<Conflict> conflicts(Collection<LocationPath> requested, Set<ClaimOwner> selves,
      Collection<LocationClaim> candidates) {
    List<LocationClaim> sorted = new ArrayList<>(candidates);
    sorted.sort(Comparator.comparingLong(LocationClaim::claimId));
    List<Conflict> out = new ArrayList<>();
    for (LocationPath root : new LinkedHashSet<>(requested)) {
      for (LocationClaim c : sorted) {
        if (!selves.contains(c.owner()) && root.overlaps(c.root())) {
          out.add(new Conflict(root, c));
        }
      }
    }
    return out;
  }

  /**
   * The minimal set of roots: duplicates and roots contained in another root dropped, order kept.
   * Claiming {@code /wh/t} and {@code /wh/t/data} is claiming {@code /wh/t}.
   */
  public static List<LocationPath> minimal(Collection<LocationPath> roots) {
    List<LocationPath> out = new ArrayList<>();
    for (LocationPath r : roots) {
      if (out.stream().anyMatch(o -> o.contains(r))) {
        continue;
      }
      out.removeIf(r::contains);
      out.add(r);
    }
    return out;
  }
}
