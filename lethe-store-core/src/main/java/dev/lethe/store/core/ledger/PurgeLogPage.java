package dev.lethe.store.core.ledger;

import dev.lethe.store.core.ContentHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a purge log and the walk over pages (docs/design/0157-purge-log-pages.md): a
 * server answers a bounded page and a cursor to the next; clients walk the pages. Pure: no I/O.
 *
 * @param entries the page's entries, in append order, never null
 * @param next the cursor of the next page (opaque text, no whitespace), empty on the last page
 */
public record PurgeLogPage(List<PurgeEntry> entries, Optional<String> next) {

  /** The most entries one page holds (2.3 MB of entry text at 32 ancestors each). */
  public static final int MAX_SIZE = 1000;

  /** How many times a walk starts again when a cursor is refused (the log was trimmed meanwhile). */
  static final int WALKS = 3;

  public PurgeLogPage {
    entries = List.copyOf(entries);
    Objects.requireNonNull(next, "next");
  }

  /**
   * Checks a page size.
   *
   * @throws IllegalArgumentException unless it is 1 to {@link #MAX_SIZE}
   */
  public static int checkSize(int size) {
    if (size < 1 || size > MAX_SIZE) {
      throw new IllegalArgumentException("Invalid pageSize: " + size + " (1 to " + MAX_SIZE + ")");
    }
    return size;
  }

  /**
   * The page after {@code after} of a log kept as {@code lines} ({@link LedgerJson#entry} lines in
   * append order): the next {@code size} entries under {@code prefix}. The cursor is a position,
   * {@code <n>-<fingerprint of line n-1>}: appends never move a line; a trim moves them, which the
   * fingerprint detects, so a cursor from before a trim is refused rather than skipping entries.
   * Only the lines of the page are parsed. The last page may be empty.
   *
   * @throws IllegalArgumentException when {@code after} is not such a cursor of {@code lines}
   */
  public static PurgeLogPage ofLines(List<String> lines, dev.lethe.store.core.KeyPrefix prefix, Optional<String> after,
      int size) {
    checkSize(size);
    int at = after.map(c -> position(lines, c)).orElse(0);
    List<PurgeEntry> out = new ArrayList<>();
    while (at < lines.size() && out.size() < size) {
      PurgeEntry e = LedgerJson.entry(lines.get(at++));
      if (prefix.matches(e.key())) {
        out.add(e);
      }
    }
    Optional<String> next = at < lines.size() ? Optional.of(at + "-" + fingerprint(lines.get(at - 1))) : Optional.empty();
    return new PurgeLogPage(out, next);
  }

  private static int position(List<String> lines, String cursor) {
    int dash = cursor.indexOf('-');
    int n;
    try {
      n = dash < 1 ? -1 : Integer.parseInt(cursor.substring(0, dash));
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > lines.size() || !fingerprint(lines.get(n - 1)).equals(cursor.substring(dash + 1))) {
      throw refused();
    }
    return n;
  }

  /** The refusal of a cursor this log did not issue, or issued before a trim. */
  public static IllegalArgumentException refused() {
    return new IllegalArgumentException("Invalid pageToken: not a page of this purge log as it is now"
        + " (it may have been trimmed since): start again without pageToken");
  }

  private static String fingerprint(String line) {
    return ContentHash.ofUtf8(line).substring(0, 16);
  }

  /**
   * Every entry, walking {@code pages} (a page after a cursor, or the first) to the last. When a
   * later page is refused ({@link IllegalArgumentException}: the log was trimmed during the walk)
   * the walk starts again, at most {@link #WALKS} times in all.
   *
   * @param pages fetches the page after a cursor (empty: the first page)
   * @throws IllegalArgumentException when the first page is refused, or every walk was
   */
  public static List<PurgeEntry> walk(java.util.function.Function<Optional<String>, PurgeLogPage> pages) {
    for (int attempt = 1; ; attempt++) {
      List<PurgeEntry> out = new ArrayList<>();
      PurgeLogPage page = pages.apply(Optional.empty());
      out.addAll(page.entries());
      try {
        while (page.next().isPresent()) {
          page = pages.apply(page.next());
          out.addAll(page.entries());
        }
        return out;
      } catch (IllegalArgumentException refused) {
        if (attempt >= WALKS) {
          throw refused;
        }
      }
    }
  }
}
