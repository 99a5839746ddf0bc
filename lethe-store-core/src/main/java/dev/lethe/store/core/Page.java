package dev.lethe.store.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a key-ordered listing ({@link Store#listPage}, {@link Store#listRawPage};
 * docs/design/0101-paged-listings.md). A walk passes {@link #next} back as {@code after} until it
 * is empty; because pages are cut by key (keyset paging), every key that exists for the whole walk
 * is returned exactly once, whatever other keys are added or removed meanwhile.
 *
 * @param records this page's records, ordered by key, never null; at most the limit asked for
 * @param next the last key this page covers, to pass as {@code after} for the next page; empty
 *     when no key follows under the prefix (as read)
 */
public record Page(List<Record> records, Optional<RecordKey> next) {

  /** The largest page a caller may ask for, in records. */
  public static final int MAX_LIMIT = 1000;

  public Page {
    records = List.copyOf(Objects.requireNonNull(records, "records"));
    Objects.requireNonNull(next, "next");
  }

  /**
   * Cuts a page from up to {@code limit + 1} records read in key order: when more than {@code
   * limit} were read, the first {@code limit} are returned and the last of them is {@link #next}.
   */
  public static Page cut(List<Record> readAhead, int limit) {
    if (readAhead.size() <= limit) {
      return new Page(readAhead, Optional.empty());
    }
    List<Record> page = readAhead.subList(0, limit);
    return new Page(page, Optional.of(page.get(limit - 1).key()));
  }

  /**
   * Checks a page size.
   *
   * @return {@code limit}
   * @throws IllegalArgumentException unless {@code 1 <= limit <= MAX_LIMIT}
   */
  public static int checkLimit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "Invalid page size " + limit + ": expected 1 to " + MAX_LIMIT + " records");
    }
    return limit;
  }
}
