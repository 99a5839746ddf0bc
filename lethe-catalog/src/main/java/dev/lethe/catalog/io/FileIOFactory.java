package dev.lethe.catalog.io;

import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.CatalogFileIOs;
import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;

/**
 * Builds the {@link FileIO} of a catalog from its warehouse location and FileIO properties
 * (user guide in {@code docs/fileio.md}).
 *
 * <p>The implementation is chosen by {@link #implFor}:
 *
 * <ol>
 *   <li>an explicit {@code io-impl} property wins, whatever the location;
 *   <li>{@code s3://}, {@code s3a://}, {@code s3n://} locations use iceberg-aws' {@code
 *       org.apache.iceberg.aws.s3.S3FileIO} (properties such as {@code s3.endpoint}, {@code
 *       s3.path-style-access}, {@code s3.access-key-id}, {@code s3.secret-access-key}, {@code
 *       client.region});
 *   <li>absolute paths and {@code file:} URIs use {@link LocalFileIO} (no Hadoop);
 *   <li>anything else is rejected.
 * </ol>
 *
 * <p>The FileIO is created and initialised with all the properties through Iceberg's {@link
 * CatalogUtil#loadFileIO}, exactly as Iceberg catalogs do, except a {@link LocalFileIO}, which is
 * confined to the catalog's allowed locations ({@link ConfinedLocalFiles}); the caller owns it and
 * must close it.
 * Stateless and thread-safe.
 */
public final class FileIOFactory implements CatalogFileIOs {
  /** Class name of iceberg-aws' S3 FileIO. */
  public static final String S3_FILE_IO_IMPL = "org.apache.iceberg.aws.s3.S3FileIO";

  /** Class name of Lethe's local filesystem FileIO. */
  public static final String LOCAL_FILE_IO_IMPL = LocalFileIO.class.getName();

  /** Creates a factory. */
  public FileIOFactory() {}

  /**
   * Chooses the FileIO implementation class for a catalog, without loading it.
   *
   * @param warehouseLocation the catalog's warehouse location, e.g. {@code s3://bucket/wh}, {@code
   *     /data/wh} or {@code file:///data/wh}; not null
   * @param properties the catalog's FileIO properties, not null (may be empty)
   * @return the fully qualified class name
   * @throws IllegalArgumentException if there is no {@code io-impl} property and the location is
   *     blank, relative or of an unsupported scheme; the message names the location
   */
  public String implFor(String warehouseLocation, Map<String, String> properties) {
    Objects.requireNonNull(properties, "Cannot choose FileIO: properties are null");
    String explicit = properties.get(CatalogProperties.FILE_IO_IMPL);
    if (explicit != null && !explicit.isBlank()) {
      return explicit.trim();
    }
    if (warehouseLocation == null || warehouseLocation.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot choose FileIO for warehouse location '" + warehouseLocation + "': location is empty and no "
              + CatalogProperties.FILE_IO_IMPL + " property is set");
    }
    String lower = warehouseLocation.toLowerCase(Locale.ROOT);
    if (lower.startsWith("s3://") || lower.startsWith("s3a://") || lower.startsWith("s3n://")) {
      return S3_FILE_IO_IMPL;
    }
    if (lower.startsWith("file:") || warehouseLocation.startsWith("/")) {
      return LOCAL_FILE_IO_IMPL;
    }
    throw new IllegalArgumentException(
        "Cannot choose FileIO for warehouse location '" + warehouseLocation
            + "': expected s3://, s3a://, s3n://, file: or an absolute path, or set "
            + CatalogProperties.FILE_IO_IMPL);
  }

  /**
   * Creates and initialises the FileIO of a catalog.
   *
   * @param warehouseLocation the catalog's warehouse location; see {@link #implFor}
   * @param properties the catalog's FileIO properties, passed unchanged to {@code
   *     FileIO.initialize}; not null
   * @return a new initialised FileIO; the caller closes it
   * @throws IllegalArgumentException if no implementation fits (see {@link #implFor}) or the
   *     implementation class cannot be loaded or initialised; the message names it
   */
  @Override
  public FileIO create(String warehouseLocation, Map<String, String> properties) {
    String impl = implFor(warehouseLocation, properties);
    if (impl.equals(LOCAL_FILE_IO_IMPL)) {
      // confined to the catalog's allowed locations: docs/design/0007-no-symbolic-link-below-the-warehouse.md
      LocalFileIO local = new LocalFileIO(ConfinedLocalFiles.of(anchors(warehouseLocation, properties)));
      local.initialize(Map.copyOf(properties));
      return local;
    }
    // no Hadoop Configuration: neither LocalFileIO nor S3FileIO needs one
    return CatalogUtil.loadFileIO(impl, Map.copyOf(properties), null);
  }

  private static List<LocationPath> anchors(String warehouseLocation, Map<String, String> properties) {
    try {
      return AllowedLocations.of(warehouseLocation, properties).locations();
    } catch (InvalidLocationException e) {
      // an io-impl LocalFileIO over an unparsable warehouse: confined to the file system root
      return List.of();
    }
  }
}
