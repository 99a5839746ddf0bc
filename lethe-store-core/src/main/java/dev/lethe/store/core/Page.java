package dev.lethe.store.core;

import dev.lethe.store.core.format.RecordJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a key-ordered listing ({@link Store#listPage}, {@link Store#listRawPage};
 * docs/design/0101-paged-listings.md). A walk passes {@link #next} back as {@code after} until it
 * is empty; because pages are cut by key (keyset paging), every key that exists for the whole walk
 * is returned exactly once, whatever other keys are added or removed meanwhile.
 *
 * <p>A page is cut by count and by size (docs/design/0110-pages-cut-by-bytes.md): it holds at most
 * the limit asked for, and no record is added once the page's records reach {@link #MAX_BYTES}
 * by {@link #sizeOf} (so a page is at most {@code MAX_BYTES} plus one record, and a single record
 * larger than the budget travels alone).
 *
 * @param records this page's records, ordered by key, never null; at most the limit asked for
 * @param next the last key this page covers, to pass as {@code after} for the next page; present
 *     whenever the page was cut by count or by size, and then the key of the last record; empty
 *     when no key follows under the prefix (as read). A page cut by size may be followed by an
 *     empty last page.
 */
public record Page(List<Record> records, Optional<RecordKey> next) {

  /** The largest page a caller may ask for, in records. */
  public static final int MAX_LIMIT = 1000;

  /**
   * The byte budget of a page: no record is added to a page once its records' {@link #sizeOf}
   * reach this many bytes (8 MiB); a page always holds at least one record if any follows.
   */
  public static final long MAX_BYTES = 8L * 1024 * 1024;

  private static final RecordJson JSON = new RecordJson();

  public Page {
    records = List.copyOf(Objects.requireNonNull(records, "records"));
    Objects.requireNonNull(next, "next");
  }

  /**
   * Returns the size of {@code record} for the page budget: the length in UTF-8 bytes of its
   * docs/store-format.md JSON ({@link RecordJson#format}). Encodes the record once; holds no more
   * than its JSON text.
   */
  public static long sizeOf(Record record) {
    return utf8Length(JSON.format(record));
  }

  /** Returns the length of {@code s} in UTF-8 bytes, without encoding it. */
  static long utf8Length(CharSequence s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * Cuts a page from records read in key order by a scan asked for {@code limit + 1} records and
   * {@code maxBytes} (which stops after the record that brings the total to {@code maxBytes} or
   * more): records are taken while fewer than {@code limit} are taken and their total {@link
   * #sizeOf} is below {@code maxBytes}. {@link #next} is the last taken key whenever a record was
   * left over or the budget was reached; empty otherwise (the scan ran out). A scan that read more
   * than {@code limit} records stopped no earlier than the record after the page, so a full page
   * is taken without measuring it again.
   *
   * @param limit at least 1
   * @param maxBytes at least 1
   */
  public static Page cut(List<Record> readAhead, int limit, long maxBytes) {
    if (readAhead.size() > limit) {
      // The scan read past the page, so the budget stopped it no earlier than record limit + 1:
      // the first limit records are under it. Measuring them again (an encode each) would only
      // confirm that, so a full page is taken as it is.
      List<Record> page = readAhead.subList(0, limit);
      return new Page(page, Optional.of(page.get(limit - 1).key()));
    }
    List<Record> page = new ArrayList<>();
    long total = 0;
    for (Record r : readAhead) {
      if (total >= maxBytes) {
        break;
      }
      page.add(r);
      total += sizeOf(r);
    }
    boolean more = page.size() < readAhead.size() || (total >= maxBytes && !page.isEmpty());
    return new Page(page, more ? Optional.of(page.get(page.size() - 1).key()) : Optional.empty());
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
