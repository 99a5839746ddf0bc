package dev.lethe.store.core.substrate;

import dev.lethe.store.core.Store;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Opens any store URI with the {@link StoreProvider}s on the class path
 * (docs/design/0140-store-provider-spi.md).
 */
public final class StoreProviders {

  private StoreProviders() {}

  /** The providers found, ordered by {@link StoreProvider#rank()}. */
  public static List<StoreProvider> all() {
    return ServiceLoader.load(StoreProvider.class, StoreProvider.class.getClassLoader()).stream()
        .map(ServiceLoader.Provider::get)
        .sorted(Comparator.comparingInt(StoreProvider::rank))
        .toList();
  }

  /**
   * Opens the store {@code request} names with the first provider that accepts its URI.
   *
   * @throws BadStoreUriException for an empty URI, a URI no provider accepts (naming the
   *     schemes that are), or one its provider refuses
   * @throws java.io.UncheckedIOException when the substrate cannot be reached or created
   */
  public static Store open(StoreUriRequest request) {
    String uri = request.uri();
    List<StoreProvider> providers = all();
    for (StoreProvider p : providers) {
      if (p.accepts(uri)) {
        return p.open(request);
      }
    }
    int colon = uri.indexOf(':');
    String scheme = colon > 0 ? uri.substring(0, colon) : uri;
    throw new BadStoreUriException(" '" + uri + "': scheme '" + scheme
        + "' is not supported by this build (use " + examples(providers) + ")");
  }

  /** "a, b or c". */
  private static String examples(List<StoreProvider> providers) {
    List<String> all = providers.stream().map(StoreProvider::example).toList();
    if (all.size() <= 1) {
      return String.join("", all);
    }
    return all.subList(0, all.size() - 1).stream().collect(Collectors.joining(", ")) + " or " + all.get(all.size() - 1);
  }
}
