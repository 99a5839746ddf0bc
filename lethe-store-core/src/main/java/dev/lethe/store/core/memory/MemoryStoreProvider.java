package dev.lethe.store.core.memory;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;

/** {@code memory:}: an empty {@link MemoryStore} that lives as long as the process (for tests). */
public final class MemoryStoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return uri.equals("memory:");
  }

  @Override
  public Store open(StoreUriRequest request) {
    return new MemoryStore(request.ancestorCap(), request.clock());
  }

  @Override
  public String example() {
    return "memory:";
  }

  @Override
  public int rank() {
    return 90;
  }
}
