package dev.lethe.catalog.location;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a catalog lets tables live (docs/design/0001-purge-confinement-and-ownership.md §2): its
 * warehouse, plus every location listed in the catalog property {@value #PROPERTY}
 * (comma-separated). A table {@code location}, a write path or a namespace {@code location} outside
 * them is refused with 400.
 *
 * <p>Pure and immutable.
 */
public final class AllowedLocations {
  /** Catalog property: further allowed locations, comma-separated (default: none). */
  public static final String PROPERTY = "allowed-locations";

  private final List<LocationPath> locations;

  private AllowedLocations(List<LocationPath> locations) {
    this.locations = List.copyOf(locations);
  }

  /**
   * The allowed locations of a catalog.
   *
   * @param warehouse the catalog's warehouse location, not null
   * @param catalogProperties the catalog's properties, not null
   * @throws InvalidLocationException if the warehouse or an entry of {@value #PROPERTY} does not
   *     parse (blank entries are ignored)
   */
  public static AllowedLocations of(String warehouse, Map<String, String> catalogProperties) {
    Objects.requireNonNull(catalogProperties, "Cannot read allowed locations: catalog properties are null");
    List<LocationPath> out = new ArrayList<>();
    out.add(LocationPath.parse(warehouse));
    String extra = catalogProperties.get(PROPERTY);
    if (extra != null) {
      for (String entry : extra.split(",")) {
        if (!entry.isBlank()) {
          out.add(LocationPath.parse(entry.trim()));
        }
      }
    }
    return new AllowedLocations(out);
  }

  /** The allowed locations, the warehouse first. */
  public List<LocationPath> locations() {
    return locations;
  }

  /** Whether an allowed location contains {@code location}. */
  public boolean allows(LocationPath location) {
    for (LocationPath allowed : locations) {
      if (allowed.contains(location)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses a location and refuses it unless it is allowed.
   *
   * @param what what the location is for, in the message (e.g. {@code "table location"})
   * @param location as written
   * @return the normalised location
   * @throws InvalidLocationException if it does not parse or is not allowed; the message names it
   *     and the allowed locations
   */
  public LocationPath check(String what, String location) {
    LocationPath parsed;
    try {
      parsed = LocationPath.parse(location);
    } catch (InvalidLocationException e) {
      throw new InvalidLocationException(location, what + ": " + e.reason());
    }
    if (!allows(parsed)) {
      throw new InvalidLocationException(location, what + " is outside the catalog's allowed locations "
          + locations + " (catalog property " + PROPERTY + " lists more)");
    }
    return parsed;
  }

  /**
   * Refuses table roots that are not all allowed.
   *
   * @throws InvalidLocationException naming the first root outside the allowed locations
   */
  public void check(TableRoots roots) {
    for (LocationPath root : roots.roots()) {
      if (!allows(root)) {
        throw new InvalidLocationException(root.toString(), "table location or write path is outside the catalog's "
            + "allowed locations " + locations + " (catalog property " + PROPERTY + " lists more)");
      }
    }
  }
}
