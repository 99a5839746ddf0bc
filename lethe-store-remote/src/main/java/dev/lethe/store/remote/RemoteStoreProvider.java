package dev.lethe.store.remote;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;

/**
 * {@code http://host:port} and {@code https://…}: a {@link RemoteStore} on a {@code lethe
 * server}, sending the request's token. The server's store keeps its own ancestor cap; the
 * request's does not apply.
 */
public final class RemoteStoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return RemoteStore.supports(uri);
  }

  /** @throws BadStoreUriException as {@link RemoteStore#open} refuses a URI or token */
  @Override
  public Store open(StoreUriRequest request) {
    try {
      return RemoteStore.open(request.uri(), request.token());
    } catch (IllegalArgumentException e) {
      throw new BadStoreUriException(": " + e.getMessage());
    }
  }

  @Override
  public String example() {
    return "http(s)://host:port";
  }

  @Override
  public int rank() {
    return 30;
  }
}
