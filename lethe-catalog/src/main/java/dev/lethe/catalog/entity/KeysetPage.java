package dev.lethe.catalog.entity;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One page of a catalog listing cut by key (docs/design/0403-keyset-catalog-listings.md): the
 * entries whose key follows the previous page's last key, in key order. Because the cursor is a key
 * and not a position, an entry that exists for the whole walk is returned exactly once whatever is
 * created or dropped meanwhile.
 *
 * @param items the entries of the page, in key order, at most the page size asked for
 * @param next the key of the last entry when more entries follow (the cursor of the next page);
 *     empty on the last page
 * @param <T> the entry type
 */
public record KeysetPage<T>(List<T> items, Optional<String> next) {
  public KeysetPage {
    items = List.copyOf(items);
  }

  /**
   * Cuts the rows a listing query returned for a page of {@code size}: the query asks for {@code
   * size + 1} rows so that one extra row tells that a next page exists.
   *
   * @param rows at most {@code size + 1} rows in key order
   * @param size the page size, at least 1
   * @param key the key of a row, as the next page's cursor
   */
  public static <T> KeysetPage<T> cut(List<T> rows, int size, Function<T, String> key) {
    if (rows.size() <= size) {
      return new KeysetPage<>(rows, Optional.empty());
    }
    List<T> page = rows.subList(0, size);
    return new KeysetPage<>(page, Optional.of(key.apply(page.get(size - 1))));
  }

  /** The row count a listing query asks for: one more than the page size. */
  public static long fetchSize(int size) {
    return (long) size + 1;
  }

  /** The same page with its entries mapped, cursor unchanged. */
  public <U> KeysetPage<U> map(Function<T, U> f) {
    return new KeysetPage<>(items.stream().map(f).toList(), next);
  }
}
