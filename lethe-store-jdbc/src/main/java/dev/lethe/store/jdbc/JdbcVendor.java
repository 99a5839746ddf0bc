package dev.lethe.store.jdbc;

import java.sql.SQLException;

/**
 * The databases the JDBC store runs on, recognised from the store URI, each with its own Flyway
 * migrations under {@code db/store-migration/<folder>} (docs/design/0102-store-migrations.md) and
 * its own way of saying "another transaction got there first".
 */
public enum JdbcVendor {
  /** H2 (embedded file or in-memory database), {@code jdbc:h2:}. */
  H2("jdbc:h2:", "h2"),
  /** PostgreSQL, {@code jdbc:postgresql:}. */
  POSTGRESQL("jdbc:postgresql:", "postgresql"),
  /** MariaDB, {@code jdbc:mariadb:}; migrations in the folder Flyway calls {@code mysql}. */
  MARIADB("jdbc:mariadb:", "mysql");

  private final String prefix;
  private final String migrationFolder;

  JdbcVendor(String prefix, String migrationFolder) {
    this.prefix = prefix;
    this.migrationFolder = migrationFolder;
  }

  /** The classpath location of this vendor's store migrations. */
  public String migrationLocation() {
    return "classpath:db/store-migration/" + migrationFolder;
  }

  /** Returns whether {@code uri} is a JDBC URL of a supported database. */
  public static boolean supports(String uri) {
    for (JdbcVendor v : values()) {
      if (uri != null && uri.startsWith(v.prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Recognises the vendor of a JDBC URL.
   *
   * @throws IllegalArgumentException for any other URL; the message names only the scheme, never
   *     credentials
   */
  public static JdbcVendor of(String url) {
    for (JdbcVendor v : values()) {
      if (url != null && url.startsWith(v.prefix)) {
        return v;
      }
    }
    throw new IllegalArgumentException(describeUnsupported(url));
  }

  /** The message for an unsupported URL: names only its scheme, never credentials. */
  public static String describeUnsupported(String url) {
    String[] parts = url == null ? new String[] {"null"} : url.split(":", 3);
    String scheme = parts.length >= 2 ? parts[0] + ":" + parts[1] + ":" : parts[0];
    return "Cannot open store: unsupported JDBC URL " + scheme
        + " (expected jdbc:h2:, jdbc:postgresql: or jdbc:mariadb:)";
  }

  /**
   * Returns whether a failed write transaction lost a race and is worth re-running from its read:
   * a duplicate primary key (a concurrent insert of the same absent key committed first), a
   * serialization failure or a deadlock victim.
   */
  boolean lostRace(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("23") || state.equals("40001") || state.equals("40P01")) {
          return true;
        }
        // H2: a concurrent update of the same row (MVStore), reported outside class 40
        if (this == H2 && (s.getErrorCode() == 90131 || state.equals("90131"))) {
          return true;
        }
        // MariaDB: 1213 deadlock (state 40001, above); 1062 duplicate key (state 23000, above)
      }
    }
    return false;
  }
}
