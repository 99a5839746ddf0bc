package dev.lethe.server.iceberg;

/**
 * The {@code pageToken} / {@code pageSize} query parameters of a list route, checked before they
 * reach Iceberg's {@code CatalogHandlers} (which reads the token as a start offset and adds the size
 * to it). Lethe's page token is the decimal offset of the first entry of the page.
 *
 * @param pageToken the start offset as a decimal string ({@code "0"} for the first page), never null
 * @param pageSize the most entries to return, at least 1, as a decimal string; small enough that
 *     offset + size does not overflow an {@code int}
 */
public record PageRequest(String pageToken, String pageSize) {
  /** Page size used when only {@code pageToken} is given. */
  public static final int DEFAULT_PAGE_SIZE = 1000;

  /**
   * Parses the two parameters.
   *
   * @param pageToken {@code pageToken} as received, or null
   * @param pageSize {@code pageSize} as received, or null
   * @return empty when neither is given (the unpaginated list), otherwise the page to return
   * @throws IllegalArgumentException (HTTP 400) naming the bad parameter: a size that is not an
   *     integer of at least 1, or a token that is not one this server handed out
   */
  public static java.util.Optional<PageRequest> parse(String pageToken, String pageSize) {
    boolean noToken = pageToken == null;
    boolean noSize = pageSize == null || pageSize.isEmpty();
    if (noToken && noSize) {
      return java.util.Optional.empty();
    }
    long start = noToken || pageToken.isEmpty() ? 0 : offset(pageToken);
    long size = noSize ? DEFAULT_PAGE_SIZE : size(pageSize);
    long capped = Math.min(size, Integer.MAX_VALUE - start);
    return java.util.Optional.of(new PageRequest(Long.toString(start), Long.toString(Math.max(capped, 1))));
  }

  private static long offset(String token) {
    if (!isDigits(token) || token.length() > 10 || Long.parseLong(token) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("Invalid pageToken: not a token returned by this server: " + token);
    }
    return Long.parseLong(token);
  }

  private static long size(String size) {
    String digits = size.startsWith("-") ? size.substring(1) : size;
    if (!isDigits(digits)) {
      throw new IllegalArgumentException("Invalid pageSize: not a number: " + size);
    }
    if (size.startsWith("-") || digits.chars().allMatch(ch -> ch == '0')) {
      throw new IllegalArgumentException("Invalid pageSize: must be at least 1: " + size);
    }
    // sizes beyond an int are allowed: the server may return fewer entries than asked for
    return digits.length() > 10 ? Integer.MAX_VALUE : Math.min(Long.parseLong(digits), Integer.MAX_VALUE);
  }

  private static boolean isDigits(String s) {
    return !s.isEmpty() && s.chars().allMatch(ch -> ch >= '0' && ch <= '9');
  }
}
