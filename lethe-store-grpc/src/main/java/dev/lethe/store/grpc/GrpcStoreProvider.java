package dev.lethe.store.grpc;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;

/**
 * {@code grpc://host:port}: a {@link GrpcStore} on a {@code lethe server}'s gRPC port, sending the
 * request's token. The server's store keeps its own ancestor cap.
 */
public final class GrpcStoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return GrpcStore.supports(uri);
  }

  /** @throws BadStoreUriException as {@link GrpcStore#open} refuses a URI or token */
  @Override
  public Store open(StoreUriRequest request) {
    try {
      return GrpcStore.open(request.uri(), request.token());
    } catch (IllegalArgumentException e) {
      throw new BadStoreUriException(": " + e.getMessage());
    }
  }

  @Override
  public String example() {
    return "grpc://host:port";
  }

  @Override
  public int rank() {
    return 35;
  }
}
