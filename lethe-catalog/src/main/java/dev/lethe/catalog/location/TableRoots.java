package dev.lethe.catalog.location;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * The locations a table owns (docs/design/0001-purge-confinement-and-ownership.md §2): its {@code
 * location}, and its write paths ({@code write.data.path}, {@code write.metadata.path} and the
 * deprecated aliases of the data path) where they lie outside it. A purge deletes a file only if a
 * root contains it; everything else the metadata names is kept.
 *
 * <p>Pure and immutable. {@link #roots()} is minimal: no root contains another.
 */
public final class TableRoots {
  /**
   * Table properties that name a directory the table's writers write into, in the order Iceberg's
   * location providers consult them for data, then the metadata path.
   */
  @SuppressWarnings("deprecation")
  public static final List<String> WRITE_PATH_PROPERTIES = List.of(
      TableProperties.WRITE_DATA_LOCATION,
      TableProperties.OBJECT_STORE_PATH,
      TableProperties.WRITE_FOLDER_STORAGE_LOCATION,
      TableProperties.WRITE_METADATA_LOCATION);

  private final LocationPath location;
  private final List<LocationPath> roots;

  private TableRoots(LocationPath location, List<LocationPath> roots) {
    this.location = location;
    this.roots = List.copyOf(roots);
  }

  /**
   * The roots of a table.
   *
   * @param location the table's {@code location}, as written
   * @param properties the table's properties, not null
   * @throws InvalidLocationException if the location or a write path property that is set does
   *     not parse (an empty value is refused too); the message names it
   */
  public static TableRoots of(String location, Map<String, String> properties) {
    Objects.requireNonNull(properties, "Cannot compute table roots: properties are null");
    LocationPath base = parseNamed("table location", location);
    List<LocationPath> candidates = new ArrayList<>();
    candidates.add(base);
    for (String key : WRITE_PATH_PROPERTIES) {
      String value = properties.get(key);
      if (value != null) {
        candidates.add(parseNamed(key, value));
      }
    }
    List<LocationPath> minimal = new ArrayList<>();
    for (LocationPath c : candidates) {
      if (minimal.stream().anyMatch(r -> r.contains(c))) {
        continue;
      }
      minimal.removeIf(c::contains);
      minimal.add(c);
    }
    // the table location first when it is a root (it is, unless a write path contains it)
    minimal.sort((a, b) -> a.equals(base) ? -1 : b.equals(base) ? 1 : 0);
    return new TableRoots(base, minimal);
  }

  /**
   * The roots of a table from its metadata.
   *
   * @throws InvalidLocationException as {@link #of(String, Map)}
   */
  public static TableRoots of(TableMetadata metadata) {
    return of(metadata.location(), metadata.properties());
  }

  /**
   * The roots a table is taken to own when only its metadata file location is known (its metadata
   * cannot be read: claims of rows written before location claims existed, or of a hand-over that
   * finds none): the directory that holds the {@code metadata/} directory of the file, else the
   * file's own directory. Conservative for the usual layout {@code <location>/metadata/<file>}.
   *
   * @param metadataFileLocation as stored
   * @return one root
   * @throws InvalidLocationException if the location does not parse or is a root directory
   */
  public static List<LocationPath> assumedFromMetadataFile(String metadataFileLocation) {
    LocationPath file = parseNamed("metadata file", metadataFileLocation);
    LocationPath dir = file.parent()
        .orElseThrow(() -> new InvalidLocationException(metadataFileLocation, "metadata file is a root directory"));
    if (dir.path().endsWith("/metadata") && dir.parent().isPresent() && !dir.parent().get().isRoot()) {
      return List.of(dir.parent().get());
    }
    return List.of(dir);
  }

  private static LocationPath parseNamed(String what, String value) {
    try {
      return LocationPath.parse(value);
    } catch (InvalidLocationException e) {
      throw new InvalidLocationException(value, what + ": " + e.reason());
    }
  }

  /** The table's {@code location}, normalised. */
  public LocationPath location() {
    return location;
  }

  /** The minimal set of owned directories, never empty. */
  public List<LocationPath> roots() {
    return roots;
  }

  /** Whether a root contains {@code path}. */
  public boolean owns(LocationPath path) {
    for (LocationPath r : roots) {
      if (r.contains(path)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code path} parses and a root contains it; false for any spelling {@link
   * LocationPath#parse} refuses, so such a path is never acted on.
   *
   * @param path as found in metadata or a manifest; may be null
   */
  public boolean owns(String path) {
    return LocationPath.tryParse(path).map(this::owns).orElse(false);
  }

  /** Whether a root of this table and a root of {@code other} overlap. */
  public boolean overlaps(TableRoots other) {
    for (LocationPath a : roots) {
      for (LocationPath b : other.roots) {
        if (a.overlaps(b)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Refuses a metadata file that lies outside the roots: a table whose metadata file it does not
   * own could not be purged without deleting another directory's files.
   *
   * @param metadataFileLocation as written
   * @throws InvalidLocationException if it does not parse or no root contains it
   */
  public void checkMetadataFile(String metadataFileLocation) {
    LocationPath file = parseNamed("metadata file", metadataFileLocation);
    if (!owns(file)) {
      throw new InvalidLocationException(metadataFileLocation,
          "metadata file is outside the table location " + location + " and its write.metadata.path");
    }
  }

  @Override
  public String toString() {
    return roots.toString();
  }
}
