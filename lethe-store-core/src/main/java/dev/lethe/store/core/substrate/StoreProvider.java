package dev.lethe.store.core.substrate;

import dev.lethe.store.core.Store;

/**
 * Opens the stores of one kind of store URI (docs/design/0140-store-provider-spi.md). Each
 * substrate module registers its provider in {@code
 * META-INF/services/dev.lethe.store.core.substrate.StoreProvider}; {@link StoreProviders} finds
 * them with {@link java.util.ServiceLoader}, so the CLI and the server open every URI through one
 * call and a new substrate plugs in by being on the class path.
 *
 * <p>Implementations are stateless and thread-safe, with a public no-argument constructor.
 */
public interface StoreProvider {

  /**
   * Returns whether this provider opens {@code uri}, judged by its scheme alone (a malformed URI
   * of this provider's scheme is accepted, and {@link #open} refuses it).
   *
   * @param uri a store URI, never null
   */
  boolean accepts(String uri);

  /**
   * Opens the store {@code request} names.
   *
   * @param request the URI and the settings it is opened with, never null; {@code request.uri()}
   *     is one this provider {@link #accepts}
   * @return the store, never null; the caller closes it if it is {@link AutoCloseable}
   * @throws BadStoreUriException for a URI that is malformed or names something unusable (nothing
   *     opened)
   * @throws java.io.UncheckedIOException when the store's substrate cannot be reached or created
   */
  Store open(StoreUriRequest request);

  /**
   * How the URI is written, for the list of supported schemes in an error message (e.g. {@code
   * "file:DIR"}).
   */
  String example();

  /** Position of {@link #example()} in that list: lower comes first. */
  int rank();
}
