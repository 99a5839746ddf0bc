package dev.lethe.store.s3;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProvider;
import dev.lethe.store.core.substrate.StoreUriRequest;

/**
 * {@code s3://bucket/prefix}: an {@link S3Store} with the request's {@code lethe.store.s3.*}
 * settings and environment (docs/store.md "S3").
 */
public final class S3StoreProvider implements StoreProvider {

  @Override
  public boolean accepts(String uri) {
    return S3Location.supports(uri);
  }

  /**
   * @throws BadStoreUriException for a malformed URI or settings that do not resolve
   * @throws java.io.UncheckedIOException for an unreachable endpoint, a missing bucket or missing
   *     credentials
   */
  @Override
  public Store open(StoreUriRequest request) {
    try {
      S3Settings.resolve(S3Location.parse(request.uri()), request.s3Settings(), request.environment());
    } catch (IllegalArgumentException e) {
      throw new BadStoreUriException(": " + e.getMessage());
    }
    return S3Store.open(request.uri(), request.s3Settings(), request.environment(), request.ancestorCap(),
        request.clock());
  }

  @Override
  public String example() {
    return "s3://bucket/prefix";
  }

  @Override
  public int rank() {
    return 50;
  }
}
