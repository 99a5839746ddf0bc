package dev.lethe.catalog.purge;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tallies the files a purge kept under rule 1 (outside the table's roots, unparsable, or inside
 * another entry's claim): a count and the first few paths for the log line "N files outside the
 * table location kept" (docs/design/0003-purge-sweep-and-kept-files.md §1). Thread-safe.
 */
final class KeptFiles implements Consumer<PurgeScope.Keep> {
  /** Paths named in the log line. */
  static final int EXAMPLES = 3;

  private long count;
  private final List<String> examples = new ArrayList<>();

  /** @param already files an earlier run of the same job kept, at least 0 */
  KeptFiles(long already) {
    this.count = already;
  }

  @Override
  public synchronized void accept(PurgeScope.Keep keep) {
    count++;
    if (examples.size() < EXAMPLES) {
      examples.add(keep.path() + " (" + keep.reason() + ")");
    }
  }

  /** Files kept so far, including the earlier runs' count. */
  synchronized long count() {
    return count;
  }

  /** "N files outside the table location kept (e.g. …)", or empty when none. */
  synchronized String summary() {
    if (count == 0) {
      return "";
    }
    return count + (count == 1 ? " file" : " files") + " outside the table location kept"
        + (examples.isEmpty() ? "" : " (e.g. " + String.join(", ", examples) + ")");
  }
}
