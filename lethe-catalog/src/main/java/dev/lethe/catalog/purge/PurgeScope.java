package dev.lethe.catalog.purge;

import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Confinement on the purge side, as one pure function: which of the paths a table's metadata
 * names a purge may delete (docs/design/0003-purge-sweep-and-kept-files.md §1).
 *
 * <p>A path is deleted only if it parses ({@link LocationPath#parse}) and lies inside a root of the
 * dropped table ({@link TableRoots}: its {@code location} and its write paths) and not inside a
 * location another entry claims (a nested table an older server let in). Everything else — a
 * statistics file or data file added from outside, a manifest list elsewhere, a spelling with
 * {@code ..}, {@code ?}, {@code #}, a foreign {@code file:} authority or a relative path — is
 * {@link Keep kept}. Both purge routes (the job runner and the synchronous purge) get their paths
 * through {@link PurgePlan#batches}, which asks this class for every path, and the sweep asks
 * {@link #sweepable} before entering a directory.
 *
 * <p>Immutable and thread-safe.
 */
public final class PurgeScope {
  private final List<LocationPath> roots;
  private final List<LocationPath> excluded;

  private PurgeScope(List<LocationPath> roots, List<LocationPath> excluded) {
    if (roots.isEmpty()) {
      throw new IllegalArgumentException("Cannot create purge scope: no root");
    }
    this.roots = List.copyOf(roots);
    this.excluded = List.copyOf(excluded);
  }

  /**
   * The scope of a purge.
   *
   * @param roots the dropped table's roots, not null
   * @param claimedByOthers locations other entries claim inside the roots (see {@code
   *     LocationClaims.claimedInside}); not null, may be empty
   */
  public static PurgeScope of(TableRoots roots, List<LocationPath> claimedByOthers) {
    Objects.requireNonNull(roots, "Cannot create purge scope: roots are null");
    return of(roots.roots(), claimedByOthers);
  }

  /**
   * The scope of a purge whose roots are known without the table's metadata (its metadata file is
   * gone; the roots come from the job's location claims).
   *
   * @param roots directories the table owned, not null, not empty
   * @param claimedByOthers locations other entries claim inside them, not null
   * @throws IllegalArgumentException if {@code roots} is empty
   */
  public static PurgeScope of(List<LocationPath> roots, List<LocationPath> claimedByOthers) {
    Objects.requireNonNull(roots, "Cannot create purge scope: roots are null");
    Objects.requireNonNull(claimedByOthers, "Cannot create purge scope: claims are null");
    return new PurgeScope(roots, claimedByOthers);
  }

  /** The scope of a purge that meets no other entry's claim. */
  public static PurgeScope of(TableRoots roots) {
    return of(roots, List.of());
  }

  /** What to do with one path found in metadata or a manifest. */
  public sealed interface Decision {}

  /**
   * Delete it.
   *
   * @param path the path as written in the metadata (the FileIO reads it; it parsed, so the file it
   *     maps to is the normalised one)
   */
  public record Delete(String path) implements Decision {}

  /**
   * Keep it, never delete it.
   *
   * @param path as written in the metadata, may be null
   * @param why the kind of reason, not null
   * @param reason one line saying why, e.g. "outside the table location and write paths"
   */
  public record Keep(String path, Why why, String reason) implements Decision {}

  /** Why a path is kept, decided with the {@link Keep} itself (the purge logs it, the preview counts it). */
  public enum Why {
    /** The path does not parse as a location. */
    INVALID_LOCATION,
    /** Outside the table's location and write paths. */
    OUTSIDE_ROOTS,
    /** Inside a location another live table, view or job claims. */
    CLAIMED_BY_ANOTHER_ENTRY,
    /** A symbolic link lies on the way to the local file. */
    SYMBOLIC_LINK
  }

  /**
   * Decides one path.
   *
   * @param path as found in metadata or a manifest; may be null
   * @return never null
   */
  public Decision decide(String path) {
    LocationPath parsed;
    try {
      parsed = LocationPath.parse(path);
    } catch (InvalidLocationException e) {
      return new Keep(path, Why.INVALID_LOCATION, "not a valid location: " + e.reason());
    }
    if (!owns(parsed)) {
      return new Keep(path, Why.OUTSIDE_ROOTS, "outside the table location and write paths " + roots);
    }
    for (LocationPath other : excluded) {
      if (other.contains(parsed)) {
        return new Keep(path, Why.CLAIMED_BY_ANOTHER_ENTRY, "inside " + other + ", which another entry claims");
      }
    }
    return new Delete(path);
  }

  /**
   * Whether the sweep may enter or delete {@code location}: false inside a location another entry
   * claims, or when such a location lies inside it only as far as deleting it wholesale goes (the
   * sweep still descends into it and skips the claimed part).
   *
   * @param location a directory or file under one of the roots, not null
   */
  public boolean sweepable(LocationPath location) {
    for (LocationPath other : excluded) {
      if (other.contains(location)) {
        return false;
      }
    }
    return owns(location);
  }

  private boolean owns(LocationPath location) {
    for (LocationPath r : roots) {
      if (r.contains(location)) {
        return true;
      }
    }
    return false;
  }

  /** The dropped table's roots: no root contains another. */
  public List<LocationPath> roots() {
    return roots;
  }

  /** Locations other entries claim inside the roots, never entered by a purge. */
  public List<LocationPath> excluded() {
    return excluded;
  }

  /** The excluded locations that lie inside {@code root}. */
  public List<LocationPath> excludedInside(LocationPath root) {
    List<LocationPath> out = new ArrayList<>();
    for (LocationPath other : excluded) {
      if (root.contains(other) || other.contains(root)) {
        out.add(other);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "PurgeScope{roots=" + roots + ", excluded=" + excluded + "}";
  }
}
