package dev.lethe.store.soak;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.StoreProviders;
import dev.lethe.store.core.substrate.StoreUriRequest;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.remote.RemoteStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/** Opens a client store from a store URI. */
@FunctionalInterface
public interface StoreOpener {

  /**
   * Opens {@code uri}.
   *
   * @throws IllegalArgumentException for a URI this opener cannot open
   */
  Store open(String uri);

  /**
   * {@code http://…} through the remote client, {@code file:DIR} as an fs store (cap 32); no other
   * scheme (no {@code grpc://}): for class paths without the store providers.
   */
  StoreOpener BUILT_IN = uri -> {
    if (uri.startsWith("file:")) {
      return new FsStore(Path.of(uri.substring("file:".length())), 32, Clock.systemUTC());
    }
    return RemoteStore.open(uri, Optional.empty());
  };

  /**
   * Any store URI a {@link dev.lethe.store.core.substrate.StoreProvider} on the class path opens
   * ({@code http://}, {@code grpc://}, {@code file:} …), as the CLI opens {@code --store}: cap 32,
   * no token, two pooled connections (docs/design/0140-store-provider-spi.md).
   */
  StoreOpener PROVIDERS = uri -> StoreProviders.open(
      new StoreUriRequest(uri, 32, Clock.systemUTC(), Optional.empty(), 2, Map.of(), Map.of(), false));
}
