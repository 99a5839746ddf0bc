package dev.lethe.store.jdbc;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;

/**
 * {@code jdbc:postgresql://…}, {@code jdbc:mariadb://…}, {@code jdbc:h2:…}: a {@link JdbcStore}
 * with at most {@code poolSize} connections (credentials as URL parameters).
 */
public final class JdbcStoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return uri.startsWith("jdbc:");
  }

  /**
   * @throws BadStoreUriException for a database this build does not support
   * @throws java.io.UncheckedIOException if the database cannot be reached or migrated
   */
  @Override
  public Store open(StoreUriRequest request) {
    String uri = request.uri();
    if (!JdbcVendor.supports(uri)) {
      throw new BadStoreUriException(": " + JdbcVendor.describeUnsupported(uri));
    }
    return JdbcStore.open(uri, request.poolSize(), request.ancestorCap(), request.clock());
  }

  @Override
  public String example() {
    return "jdbc:…";
  }

  @Override
  public int rank() {
    return 40;
  }
}
