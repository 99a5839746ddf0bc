package dev.lethe.cli.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.BadStoreUriException;
import dev.lethe.store.core.substrate.StoreProviders;
import dev.lethe.store.core.substrate.StoreUriRequest;
import dev.lethe.store.git.GitStore;
import dev.lethe.store.s3.S3Location;
import dev.lethe.store.s3.S3Settings;
import java.util.Optional;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Opens a store from a {@code --store} / {@code --peer} URI: {@code file:DIR} (a local fs store;
 * {@code file:.} is the default), {@code http://host:port} / {@code https://…} (the store of a
 * {@code lethe server}; {@code --token} or {@code LETHE_TOKEN} is its bearer token), {@code jdbc:postgresql://…}, {@code jdbc:mariadb://…} or {@code
 * jdbc:h2:…} (a JDBC store; credentials as URL parameters), {@code s3://bucket/prefix} (an S3
 * store; {@code lethe.store.s3.*} settings and the AWS environment, docs/store.md "S3"), {@code
 * git:DIR} (a git work tree, docs/store.md "git:") or {@code memory:} (an empty store that lives
 * for one command; for tests), or any other a {@link dev.lethe.store.core.substrate.StoreProvider} on the
 * class path opens (docs/design/0140-store-provider-spi.md).
 */
final class StoreUri {

  private StoreUri() {}

  /**
   * Fails unless the {@code file:} directory named by {@code uri} exists, so that a mistyped
   * {@code --store} is reported instead of read as an empty store (where {@code delete} would
   * print {@code deleted:} for a record that lives on elsewhere). Other schemes pass.
   *
   * @throws UsageException naming the missing directory
   */
  static void requireExisting(String option, String uri) {
    if (uri != null && uri.startsWith(GitStore.SCHEME)) {
      Path git = gitDirectory(option, uri);
      if (!Files.exists(git)) {
        throw new UsageException(option + " '" + uri + "': the directory " + git + " does not exist");
      }
      return;
    }
    if (uri == null || !uri.startsWith("file:")) {
      return;
    }
    String dir = uri.substring("file:".length());
    if (dir.startsWith("//")) {
      dir = dir.substring(2);
    }
    if (!dir.isEmpty() && !Files.exists(Path.of(dir))) {
      throw new UsageException(option + " '" + uri + "': the directory " + dir + " does not exist");
    }
  }

  /**
   * Opens a store; a {@code file:} directory that does not exist yet is created by the first
   * write.
   *
   * @throws UsageException for an empty, malformed or unsupported URI, or a {@code file:} path
   *     that is not a directory
   */
  static Store open(String option, String uri, int cap, Clock clock) {
    return open(option, uri, cap, clock, Optional.empty());
  }

  /**
   * Opens a store, sending {@code token} to an http(s) store.
   *
   * @param token the bearer token for a remote store; ignored by the others
   * @throws UsageException for an empty, malformed or unsupported URI
   */
  static Store open(String option, String uri, int cap, Clock clock, Optional<String> token) {
    return open(option, uri, cap, clock, token, System.getenv());
  }

  /**
   * Opens a store, sending {@code token} to an http(s) store and reading an {@code s3:} store's
   * {@code lethe.store.s3.*} settings from system properties and {@code environment}.
   *
   * @param environment the process environment ({@code LETHE_STORE_S3_*}, {@code AWS_REGION})
   * @throws UsageException for an empty, malformed or unsupported URI
   */
  static Store open(String option, String uri, int cap, Clock clock, Optional<String> token,
      java.util.Map<String, String> environment) {
    if (uri == null || uri.isEmpty()) {
      throw new UsageException(option + " must not be empty (e.g. file:./data)");
    }
    java.util.Map<String, String> s3 = S3Location.supports(uri)
        ? S3Settings.fromProcess(environment, System.getProperties()) : java.util.Map.of();
    // one connection serves a command; a second lets a sync read one side while writing it
    StoreUriRequest request = new StoreUriRequest(uri, cap, clock, token, 2, s3, environment, false);
    try {
      // a server's store keeps its own ancestor cap; --ancestor-cap does not apply to it. An
      // unreachable endpoint or database: UncheckedIOException, exit 1
      return StoreProviders.open(request);
    } catch (BadStoreUriException e) {
      throw new UsageException(option + e.detail());
    }
  }

  private static Path gitDirectory(String option, String uri) {
    try {
      return GitStore.directoryOf(uri).orElseThrow();
    } catch (IllegalArgumentException e) {
      throw new UsageException(option + " " + e.getMessage());
    }
  }
}
