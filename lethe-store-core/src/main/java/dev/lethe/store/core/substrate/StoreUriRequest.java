package dev.lethe.store.core.substrate;

import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link StoreProvider} opens a store URI with.
 *
 * @param uri the store URI, never null
 * @param ancestorCap ancestors kept per record, at least 1; a store on a server keeps the server's
 * @param clock the store's clock, never null
 * @param token the bearer token sent to a store on a server ({@code http(s):}, {@code grpc:}),
 *     empty for none; never logged
 * @param poolSize most pooled connections of a {@code jdbc:} store, at least 1
 * @param s3Settings the {@code lethe.store.s3.*} keys of an {@code s3:} store (may hold a secret),
 *     never null
 * @param environment the process environment ({@code AWS_REGION}, …), never null
 * @param createDirectory whether a {@code file:} directory is created now (a server) rather than
 *     by the first write (the CLI)
 */
public record StoreUriRequest(String uri, int ancestorCap, Clock clock, Optional<String> token, int poolSize,
    Map<String, String> s3Settings, Map<String, String> environment, boolean createDirectory) {

  public StoreUriRequest {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(s3Settings, "s3Settings");
    Objects.requireNonNull(environment, "environment");
    if (ancestorCap < 1 || poolSize < 1) {
      throw new IllegalArgumentException("ancestorCap and poolSize must be at least 1");
    }
  }

  /** A request for {@code uri} with no token, one pooled connection, no S3 settings or environment. */
  public static StoreUriRequest of(String uri, int ancestorCap, Clock clock) {
    return new StoreUriRequest(uri, ancestorCap, clock, Optional.empty(), 1, Map.of(), Map.of(), false);
  }

  /** This request with another token. */
  public StoreUriRequest withToken(Optional<String> value) {
    return new StoreUriRequest(uri, ancestorCap, clock, value, poolSize, s3Settings, environment, createDirectory);
  }
}
