package dev.lethe.store.soak;

import dev.lethe.store.core.Store;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.remote.RemoteStore;
import java.nio.file.Path;
import java.time.Clock;
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

  /** {@code http://…} through the remote client, {@code file:DIR} as an fs store (cap 32). */
  StoreOpener BUILT_IN = uri -> {
    if (uri.startsWith("file:")) {
      return new FsStore(Path.of(uri.substring("file:".length())), 32, Clock.systemUTC());
    }
    return RemoteStore.open(uri, Optional.empty());
  };
}
