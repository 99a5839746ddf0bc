package dev.lethe.catalog.entity;

/**
 * The database families Lethe's catalog runs on, recognised from the JDBC URL. Each has its own
 * Flyway migration folder under {@code db/migration/<folder>} (docs/design/0200-catalog-architecture.md "Modules").
 */
public enum DatabaseVendor {
  H2("h2"),
  POSTGRESQL("postgresql"),
  MYSQL("mysql");

  private final String migrationFolder;

  DatabaseVendor(String migrationFolder) {
    this.migrationFolder = migrationFolder;
  }

  /** The classpath location of this vendor's migrations, e.g. {@code classpath:db/migration/h2}. */
  public String migrationLocation() {
    return "classpath:db/migration/" + migrationFolder;
  }

  /**
   * Recognises the vendor of a JDBC URL.
   *
   * @throws IllegalArgumentException if the URL is null or names an unsupported database; the
   *     message names only the URL scheme, never credentials
   */
  public static DatabaseVendor fromJdbcUrl(String url) {
    if (url != null) {
      if (url.startsWith("jdbc:h2:")) {
        return H2;
      }
      if (url.startsWith("jdbc:postgresql:")) {
        return POSTGRESQL;
      }
      if (url.startsWith("jdbc:mysql:") || url.startsWith("jdbc:mariadb:")) {
        return MYSQL;
      }
    }
    String[] parts = url == null ? new String[] {"null"} : url.split(":", 3);
    String scheme = parts.length >= 2 ? parts[0] + ":" + parts[1] + ":" : parts[0];
    throw new IllegalArgumentException(
        "Cannot open catalog database: unsupported JDBC URL " + scheme + " (expected jdbc:h2:, jdbc:postgresql:, jdbc:mysql: or jdbc:mariadb:)");
  }
}
