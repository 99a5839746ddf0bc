package dev.lethe.catalog.location;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewProperties;

/**
 * Confinement on the write side, as pure functions (docs/design/0001-purge-confinement-and-
 * ownership.md §2): what a create, register, commit or namespace change may write into the
 * catalog. Each check throws {@link InvalidLocationException} (400 on every route, message naming
 * the location and what it is for) before anything is written or stored.
 *
 * <ul>
 *   <li>A table's {@code location} and write paths ({@link TableRoots#WRITE_PATH_PROPERTIES}), a
 *       view's {@code location} and {@code write.metadata.path}, and a namespace's {@code
 *       location} must parse and lie inside the catalog's {@link AllowedLocations}. On a commit
 *       only what the commit changes is checked, so a table left outside a narrowed {@code
 *       allowed-locations} can still be written, but not moved further out.
 *   <li>Paths a client writes into table metadata that the catalog may later read or delete
 *       (snapshot manifest lists, statistics and partition statistics files, the metadata log of a
 *       registered file) must parse; they may lie outside the roots (a purge keeps them).
 *   <li>A registered metadata file must lie inside the table's roots ({@link
 *       TableRoots#checkMetadataFile}); a registered view metadata file inside the allowed
 *       locations.
 * </ul>
 */
public final class WriteConfinement {
  /** The namespace property that sets the default location of the namespace's tables. */
  public static final String NAMESPACE_LOCATION = "location";

  private WriteConfinement() {}

  /**
   * Checks a table write: a create or register ({@code base == null}) or a commit.
   *
   * @param allowed the catalog's allowed locations, not null
   * @param base the table's current metadata, or null for a new table
   * @param next the metadata about to be written (or registered), not null
   * @throws InvalidLocationException naming the first location refused
   */
  public static void checkTable(AllowedLocations allowed, TableMetadata base, TableMetadata next) {
    Objects.requireNonNull(allowed, "allowed");
    if (base == null || !Objects.equals(base.location(), next.location())) {
      allowed.check("table location", next.location());
    }
    for (String key : TableRoots.WRITE_PATH_PROPERTIES) {
      String value = next.properties().get(key);
      if (value != null && (base == null || !value.equals(base.properties().get(key)))) {
        allowed.check(key, value);
      }
    }
    checkMetadataPaths(base, next);
  }

  /**
   * Whether a commit changes the table's roots: its {@code location} or a write path property.
   *
   * @param base not null
   * @param next not null
   */
  public static boolean rootsChanged(TableMetadata base, TableMetadata next) {
    if (!Objects.equals(base.location(), next.location())) {
      return true;
    }
    for (String key : TableRoots.WRITE_PATH_PROPERTIES) {
      if (!Objects.equals(base.properties().get(key), next.properties().get(key))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Checks the spelling of every metadata-level path {@code next} adds to {@code base}: manifest
   * lists of new snapshots, new statistics and partition statistics files, and (for a new table)
   * the files of its metadata log.
   *
   * @throws InvalidLocationException naming the path and what it is
   */
  static void checkMetadataPaths(TableMetadata base, TableMetadata next) {
    Set<Long> oldSnapshots = new HashSet<>();
    Set<String> oldPaths = new HashSet<>();
    if (base != null) {
      base.snapshots().forEach(s -> oldSnapshots.add(s.snapshotId()));
      base.statisticsFiles().forEach(f -> oldPaths.add(f.path()));
      base.partitionStatisticsFiles().forEach(f -> oldPaths.add(f.path()));
    }
    for (Snapshot s : next.snapshots()) {
      if (!oldSnapshots.contains(s.snapshotId()) && s.manifestListLocation() != null) {
        spelling("manifest list of snapshot " + s.snapshotId(), s.manifestListLocation());
      }
    }
    for (StatisticsFile f : next.statisticsFiles()) {
      if (!oldPaths.contains(f.path())) {
        spelling("statistics file of snapshot " + f.snapshotId(), f.path());
      }
    }
    for (PartitionStatisticsFile f : next.partitionStatisticsFiles()) {
      if (!oldPaths.contains(f.path())) {
        spelling("partition statistics file of snapshot " + f.snapshotId(), f.path());
      }
    }
    if (base == null) {
      for (TableMetadata.MetadataLogEntry e : next.previousFiles()) {
        spelling("previous metadata file", e.file());
      }
    }
  }

  /**
   * Checks a registered metadata file: it parses and lies inside the roots of the table it
   * describes.
   *
   * @param roots the roots of the registered metadata, not null
   * @param metadataFileLocation as written in the register request
   * @throws InvalidLocationException if it does not parse or lies outside the roots
   */
  public static void checkRegisteredMetadataFile(TableRoots roots, String metadataFileLocation) {
    roots.checkMetadataFile(metadataFileLocation);
  }

  /**
   * Checks a view write: a create or register ({@code base == null}) or a replace.
   *
   * @param allowed the catalog's allowed locations, not null
   * @param base the view's current metadata, or null for a new view
   * @param next the metadata about to be written (or registered), not null
   * @throws InvalidLocationException naming the first location refused
   */
  public static void checkView(AllowedLocations allowed, ViewMetadata base, ViewMetadata next) {
    if (base == null || !Objects.equals(base.location(), next.location())) {
      allowed.check("view location", next.location());
    }
    String metadataPath = next.properties().get(ViewProperties.WRITE_METADATA_LOCATION);
    if (metadataPath != null
        && (base == null || !metadataPath.equals(base.properties().get(ViewProperties.WRITE_METADATA_LOCATION)))) {
      allowed.check("view " + ViewProperties.WRITE_METADATA_LOCATION, metadataPath);
    }
  }

  /**
   * Checks a view metadata file the catalog will point at (and an asynchronous view drop delete):
   * it parses and lies inside the allowed locations.
   *
   * @return the normalised file location
   * @throws InvalidLocationException if not
   */
  public static LocationPath checkViewMetadataFile(AllowedLocations allowed, String metadataFileLocation) {
    return allowed.check("view metadata file", metadataFileLocation);
  }

  /**
   * Checks the {@code location} property of a namespace being created or updated, if it is set.
   *
   * @param properties the properties set by the request (may be null: nothing set)
   * @throws InvalidLocationException if the location does not parse or is not allowed
   */
  public static void checkNamespaceLocation(AllowedLocations allowed, Map<String, String> properties) {
    if (properties == null) {
      return;
    }
    String location = properties.get(NAMESPACE_LOCATION);
    if (location != null) {
      allowed.check("namespace location", location);
    }
  }

  /**
   * Checks the locations a create request names before anything is built: its {@code location}
   * (when given) and its write path properties (when given). The commit checks the full metadata
   * again; this only makes a stage-create fail as early as a create.
   *
   * @param location the requested table location, or null for the default
   * @param properties the requested table properties, or null for none
   * @throws InvalidLocationException naming the first location refused
   */
  public static void checkCreateRequest(AllowedLocations allowed, String location, Map<String, String> properties) {
    if (location != null) {
      allowed.check("table location", location);
    }
    if (properties != null) {
      for (String key : TableRoots.WRITE_PATH_PROPERTIES) {
        String value = properties.get(key);
        if (value != null) {
          allowed.check(key, value);
        }
      }
    }
  }

  /**
   * Checks that a path parses.
   *
   * @param what what the path is, for the message
   * @throws InvalidLocationException naming the path, what it is and why it is refused
   */
  public static LocationPath spelling(String what, String path) {
    try {
      return LocationPath.parse(path);
    } catch (InvalidLocationException e) {
      throw new InvalidLocationException(path, what + ": " + e.reason());
    }
  }
}
