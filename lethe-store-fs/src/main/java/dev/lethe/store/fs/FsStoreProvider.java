package dev.lethe.store.fs;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code file:DIR} (or {@code file://DIR}): an {@link FsStore} rooted at {@code DIR}, created now
 * when the request asks for it and otherwise by the first write.
 */
public final class FsStoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return uri.startsWith("file:");
  }

  /**
   * @throws BadStoreUriException for a URI naming no directory, or a path that is not a directory
   * @throws UncheckedIOException if the directory cannot be created
   */
  @Override
  public Store open(StoreUriRequest request) {
    String uri = request.uri();
    String dir = uri.substring("file:".length());
    if (dir.startsWith("//")) {
      dir = dir.substring(2);
    }
    if (dir.isEmpty()) {
      throw new BadStoreUriException(" '" + uri + "' names no directory (e.g. file:./data)");
    }
    Path root = Path.of(dir);
    if (Files.exists(root) && !Files.isDirectory(root)) {
      throw new BadStoreUriException(" '" + uri + "': " + root + " is not a directory");
    }
    if (request.createDirectory()) {
      try {
        Files.createDirectories(root);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create store directory " + root, e);
      }
    }
    return new FsStore(root, request.ancestorCap(), request.clock());
  }

  @Override
  public String example() {
    return "file:DIR";
  }

  @Override
  public int rank() {
    return 10;
  }
}
