package dev.lethe.store.git;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;
import java.nio.file.Path;

/** {@code git:DIR}: a {@link GitStore} on the work tree {@code DIR} (docs/store.md "git:"). */
public final class GitStoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return uri.startsWith(GitStore.SCHEME);
  }

  /** @throws BadStoreUriException for a URI naming no directory, or a directory git cannot use */
  @Override
  public Store open(StoreUriRequest request) {
    String uri = request.uri();
    Path dir;
    try {
      dir = GitStore.directoryOf(uri).orElseThrow();
    } catch (IllegalArgumentException e) {
      throw new BadStoreUriException(" " + e.getMessage());
    }
    try {
      return GitStore.open(dir, request.ancestorCap(), request.clock());
    } catch (IllegalArgumentException e) {
      throw new BadStoreUriException(" '" + uri + "': " + e.getMessage());
    }
  }

  @Override
  public String example() {
    return "git:DIR";
  }

  @Override
  public int rank() {
    return 20;
  }
}
