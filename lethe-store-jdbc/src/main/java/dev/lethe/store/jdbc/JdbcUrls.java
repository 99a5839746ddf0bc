package dev.lethe.store.jdbc;

/** Prints a JDBC URL without its credentials, for messages and logs. */
public final class JdbcUrls {
  private JdbcUrls() {}

  /**
   * Returns {@code url} with every password value ({@code password=…} in a query, {@code
   * ;PASSWORD=…} in H2 settings) and any {@code user:password@} part replaced by {@code ***}.
   */
  public static String redact(String url) {
    if (url == null) {
      return "null";
    }
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***")
        .replaceAll("//[^/@?;]*:[^/@?;]*@", "//***@");
  }
}
