package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.CatalogRow;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.LocationUtil;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Where a table lives when its create names no location: {@code <namespace location>/<table>-<id>},
 * the namespace location being its {@code location} property or {@code <warehouse>/<level>/<level>…}
 * ({@link LetheCatalog#UNIQUE_TABLE_LOCATION} drops the unique suffix).
 */
final class DefaultLocations {
  private static final Pattern TRAILING_SLASHES = Pattern.compile("/+$");

  private final CatalogRow catalog;
  private final Supplier<String> ids;
  private final Namespaces namespaces;

  DefaultLocations(CatalogRow catalog, Supplier<String> ids, Namespaces namespaces) {
    this.catalog = catalog;
    this.ids = ids;
    this.namespaces = namespaces;
  }

  /** @throws org.apache.iceberg.exceptions.NoSuchNamespaceException if the namespace does not exist */
  String table(TableIdentifier identifier) {
    boolean unique = PropertyUtil.propertyAsBoolean(catalog.properties(), LetheCatalog.UNIQUE_TABLE_LOCATION, true);
    // bounded to a file name's 255 bytes: every accepted name gets a directory (docs/design/0401)
    String dir = unique ? DirectoryNames.of(identifier.name(), "-" + ids.get().replace("-", ""))
        : DirectoryNames.of(identifier.name());
    return namespace(identifier.namespace()) + "/" + dir;
  }

  private String namespace(Namespace namespace) {
    Map<String, String> props = namespaces.properties(namespace);
    String location = props.get("location");
    if (location != null && !location.isEmpty()) {
      return stripTrailingSlash(location);
    }
    return stripTrailingSlash(catalog.warehouse()) + "/"
        + String.join("/", Arrays.stream(namespace.levels()).map(DirectoryNames::of).toList());
  }

  /**
   * {@link LocationUtil#stripTrailingSlash}, keeping Lethe's answers where Iceberg's differ: the
   * root {@code "/"} (and any run of slashes) stays {@code "/"}, a bare {@code "scheme://"} loses
   * every trailing slash, and {@code ""} stays {@code ""} (docs/design/0220-library-plumbing.md
   * §Iceberg helpers).
   *
   * @param location a location, not null
   * @return the location without trailing slashes, never empty unless {@code location} is
   */
  static String stripTrailingSlash(String location) {
    if (location.isEmpty()) {
      return location;
    }
    String stripped = LocationUtil.stripTrailingSlash(location);
    if (stripped.isEmpty()) {
      return "/";
    }
    return stripped.endsWith("/") ? TRAILING_SLASHES.matcher(stripped).replaceFirst("") : stripped;
  }
}
