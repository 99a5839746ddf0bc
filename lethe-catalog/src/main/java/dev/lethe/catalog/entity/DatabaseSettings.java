package dev.lethe.catalog.entity;

/**
 * Where the catalog database is and how to log in.
 *
 * @param jdbcUrl JDBC URL, never null ({@code jdbc:h2:}, {@code jdbc:postgresql:}, {@code
 *     jdbc:mysql:} or {@code jdbc:mariadb:})
 * @param user user name, null for none (or when the URL carries it)
 * @param password password, null for none; never logged
 * @param maxPoolSize the most pooled connections, at least 1
 */
public record DatabaseSettings(String jdbcUrl, String user, String password, int maxPoolSize) {
  @Override
  public String toString() {
    return "DatabaseSettings[jdbcUrl=" + jdbcUrl + ", user=" + user + ", maxPoolSize=" + maxPoolSize + "]";
  }
}
