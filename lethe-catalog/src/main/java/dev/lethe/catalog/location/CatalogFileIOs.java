package dev.lethe.catalog.location;

import java.util.Map;
import org.apache.iceberg.io.FileIO;

/**
 * Opens the FileIO of a catalog from its warehouse location and FileIO properties: what {@link
 * ClaimBackfill} reads table metadata through, given by the package that builds FileIOs ({@code
 * io.FileIOFactory}), so that the claims do not depend on it (docs/design/0210-catalog-drop-and-jobs-layout.md).
 */
@FunctionalInterface
public interface CatalogFileIOs {
  /**
   * @return a new initialised FileIO; the caller closes it
   * @throws IllegalArgumentException if it cannot be built; the message says why
   */
  FileIO create(String warehouseLocation, Map<String, String> properties);
}
