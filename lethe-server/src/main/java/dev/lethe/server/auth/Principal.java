package dev.lethe.server.auth;

import java.util.Objects;
import java.util.Set;

/**
 * An authenticated caller, as named in the auth file. Carries no token and no token hash.
 *
 * @param name the principal's name from the auth file, never null or blank
 * @param readCatalogs catalogs the principal may read; {@code "*"} = any; never null
 * @param writeCatalogs catalogs the principal may change (and read); {@code "*"} = any; never null
 */
public record Principal(String name, Set<String> readCatalogs, Set<String> writeCatalogs) {
  /** The wildcard that grants access to every catalog. */
  public static final String ANY_CATALOG = "*";

  /** Copies the sets; rejects null or blank names. */
  public Principal {
    Objects.requireNonNull(name, "Cannot create principal: name is null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("Cannot create principal: name is blank");
    }
    readCatalogs = Set.copyOf(readCatalogs);
    writeCatalogs = Set.copyOf(writeCatalogs);
  }

  /**
   * Whether the principal may perform {@code access} on {@code catalog}. Write access implies read
   * access: an Iceberg client loads a table before it commits to it.
   *
   * @param catalog catalog name, not null
   * @param access what the request does, not null
   */
  public boolean may(String catalog, Access access) {
    Objects.requireNonNull(catalog, "Cannot check access: catalog is null");
    boolean write = grants(writeCatalogs, catalog);
    return switch (access) {
      case WRITE -> write;
      case READ -> write || grants(readCatalogs, catalog);
    };
  }

  /** An admin has {@code "*"} in both its read and its write list. */
  public boolean isAdmin() {
    return readCatalogs.contains(ANY_CATALOG) && writeCatalogs.contains(ANY_CATALOG);
  }

  private static boolean grants(Set<String> catalogs, String catalog) {
    return catalogs.contains(ANY_CATALOG) || catalogs.contains(catalog);
  }
}
