package dev.lethe.cli.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.fs.FsStore;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Opens a store from a {@code --store} / {@code --peer} URI: {@code file:DIR} (a local fs store;
 * {@code file:.} is the default) or {@code memory:} (an empty store that lives for one command;
 * for tests). The git, s3, http and jdbc schemes of DESIGN.md come with their substrates.
 */
final class StoreUri {

  private StoreUri() {}

  /**
   * @throws UsageException for an empty, malformed or unsupported URI
   */
  static Store open(String option, String uri, int cap, Clock clock) {
    if (uri == null || uri.isEmpty()) {
      throw new UsageException(option + " must not be empty (e.g. file:./data)");
    }
    if (uri.equals("memory:")) {
      return new MemoryStore(cap, clock);
    }
    if (uri.startsWith("file:")) {
      String dir = uri.substring("file:".length());
      if (dir.startsWith("//")) {
        dir = dir.substring(2);
      }
      if (dir.isEmpty()) {
        throw new UsageException(option + " '" + uri + "' names no directory (e.g. file:./data)");
      }
      return new FsStore(Path.of(dir), cap, clock);
    }
    int colon = uri.indexOf(':');
    String scheme = colon > 0 ? uri.substring(0, colon) : uri;
    throw new UsageException(option + " '" + uri + "': scheme '" + scheme
        + "' is not supported by this build (use file:DIR or memory:)");
  }
}
