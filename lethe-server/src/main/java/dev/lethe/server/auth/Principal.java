package dev.lethe.server.auth;

import java.util.Objects;
import java.util.Set;

/**
 * An authenticated caller, as named in the auth file. Carries no token and no token hash.
 *
 * <p>The catalog lists ({@code read}, {@code write}) and the store lists ({@code store.read},
 * {@code store.write}) are independent (docs/design/0105-store-grants.md): catalog write implies
 * catalog read, while the store rules of {@link StoreGrants} check each store list on its own.
 *
 * @param name the principal's name from the auth file, never null or blank
 * @param readCatalogs catalogs the principal may read; {@code "*"} = any; never null
 * @param writeCatalogs catalogs the principal may change (and read); {@code "*"} = any; never null
 * @param storeRead store namespaces the principal may read; {@code "*"} = any; never null
 * @param storeWrite store namespaces the principal may write; {@code "*"} = any; never null
 */
public record Principal(
    String name, Set<String> readCatalogs, Set<String> writeCatalogs, Set<String> storeRead, Set<String> storeWrite) {
  /** The wildcard that grants access to every catalog or every store namespace. */
  public static final String ANY_CATALOG = "*";

  /** Copies the sets; rejects null or blank names. */
  public Principal {
    Objects.requireNonNull(name, "Cannot create principal: name is null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("Cannot create principal: name is blank");
    }
    readCatalogs = Set.copyOf(readCatalogs);
    writeCatalogs = Set.copyOf(writeCatalogs);
    storeRead = Set.copyOf(storeRead);
    storeWrite = Set.copyOf(storeWrite);
  }

  /**
   * A principal whose auth-file entry has no {@code store} key: a catalog admin keeps the whole
   * store (it was the only principal the store routes admitted before store grants existed), anyone
   * else has no store grant.
   */
  public Principal(String name, Set<String> readCatalogs, Set<String> writeCatalogs) {
    this(name, readCatalogs, writeCatalogs, defaultStoreGrants(readCatalogs, writeCatalogs),
        defaultStoreGrants(readCatalogs, writeCatalogs));
  }

  /** The store grants of an entry without a {@code store} key: {@code "*"} for a catalog admin, none otherwise. */
  public static Set<String> defaultStoreGrants(Set<String> readCatalogs, Set<String> writeCatalogs) {
    return readCatalogs.contains(ANY_CATALOG) && writeCatalogs.contains(ANY_CATALOG) ? Set.of(ANY_CATALOG) : Set.of();
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

  /**
   * Whether the principal may read something: a catalog in {@code read} or {@code write} (write
   * implies read) or a store namespace in {@code store.read}. Decides access to {@code /metrics}.
   */
  public boolean readsAnything() {
    return !readCatalogs.isEmpty() || !writeCatalogs.isEmpty() || !storeRead.isEmpty();
  }

  /** A store admin has {@code "*"} in both {@code store.read} and {@code store.write}. */
  public boolean isStoreAdmin() {
    return storeRead.contains(ANY_CATALOG) && storeWrite.contains(ANY_CATALOG);
  }

  static boolean grants(Set<String> names, String name) {
    return names.contains(ANY_CATALOG) || names.contains(name);
  }
}
