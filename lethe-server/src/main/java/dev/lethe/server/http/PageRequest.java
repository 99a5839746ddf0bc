package dev.lethe.server.http;

import java.util.Optional;

/**
 * The {@code pageToken} / {@code pageSize} query parameters of a catalog list route, as the
 * Iceberg REST spec has them: no parameter is the whole list; an empty token is the first page; a
 * token is a {@link ListingCursor} this server issued as {@code next-page-token} for the same
 * listing (docs/design/0403-keyset-catalog-listings.md).
 *
 * @param after the key the page starts after, empty for the first page
 * @param size the most entries to return, at least 1
 */
public record PageRequest(Optional<String> after, int size) {
  /** Page size used when only {@code pageToken} is given. */
  public static final int DEFAULT_PAGE_SIZE = 1000;

  /**
   * Parses the two parameters.
   *
   * @param pageToken {@code pageToken} as received, or null
   * @param pageSize {@code pageSize} as received, or null
   * @param cursor the listing and scope a token must have been issued for
   * @return empty when neither is given (the unpaginated list), otherwise the page to return
   * @throws IllegalArgumentException (HTTP 400) naming the bad parameter: a size that is not an
   *     integer of at least 1, or a token that is not one this server issued for this listing
   */
  public static Optional<PageRequest> parse(String pageToken, String pageSize, ListingCursor cursor) {
    boolean noToken = pageToken == null;
    boolean noSize = pageSize == null || pageSize.isEmpty();
    if (noToken && noSize) {
      return Optional.empty();
    }
    Optional<String> after = noToken || pageToken.isEmpty() ? Optional.empty() : Optional.of(cursor.after(pageToken));
    int size = noSize ? DEFAULT_PAGE_SIZE : size(pageSize);
    return Optional.of(new PageRequest(after, size));
  }

  /** The key to start after, or null for the first page (as the catalog's page methods take it). */
  public String afterOrNull() {
    return after.orElse(null);
  }

  private static int size(String size) {
    String digits = size.startsWith("-") ? size.substring(1) : size;
    if (!isDigits(digits)) {
      throw new IllegalArgumentException("Invalid pageSize: not a number: " + size);
    }
    if (size.startsWith("-") || digits.chars().allMatch(ch -> ch == '0')) {
      throw new IllegalArgumentException("Invalid pageSize: must be at least 1: " + size);
    }
    // sizes beyond an int are allowed: the server may return fewer entries than asked for
    return digits.length() > 10 ? Integer.MAX_VALUE : (int) Math.min(Long.parseLong(digits), Integer.MAX_VALUE);
  }

  private static boolean isDigits(String s) {
    return !s.isEmpty() && s.chars().allMatch(ch -> ch >= '0' && ch <= '9');
  }
}
