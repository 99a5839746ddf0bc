package dev.lethe.cli.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.git.GitStore;
import dev.lethe.store.jdbc.JdbcStore;
import dev.lethe.store.jdbc.JdbcVendor;
import dev.lethe.store.remote.RemoteStore;
import dev.lethe.store.s3.S3Location;
import dev.lethe.store.s3.S3Settings;
import dev.lethe.store.s3.S3Store;
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
 * for one command; for tests).
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
    if (uri.equals("memory:")) {
      return new MemoryStore(cap, clock);
    }
    if (uri.startsWith("file:")) {
      String dir = uri.substring("file:".length());
      if (dir.startsWith("//")) {
        dir = dir.substring(2);
      }
      if (dir.isEmpty()) {
        throw new UsageException(option + " '" + uri + "' names no directory (e.g. file:./data)");
      }
      Path root = Path.of(dir);
      if (Files.exists(root) && !Files.isDirectory(root)) {
        throw new UsageException(option + " '" + uri + "': " + root + " is not a directory");
      }
      return new FsStore(root, cap, clock);
    }
    if (uri.startsWith(GitStore.SCHEME)) {
      try {
        return GitStore.open(gitDirectory(option, uri), cap, clock);
      } catch (IllegalArgumentException e) {
        throw new UsageException(option + " '" + uri + "': " + e.getMessage());
      }
    }
    if (RemoteStore.supports(uri)) {
      try {
        // the server's store keeps its own ancestor cap; --ancestor-cap does not apply to it
        return RemoteStore.open(uri, token);
      } catch (IllegalArgumentException e) {
        throw new UsageException(option + ": " + e.getMessage());
      }
    }
    if (S3Location.supports(uri)) {
      java.util.Map<String, String> settings = S3Settings.fromProcess(environment, System.getProperties());
      try {
        S3Settings.resolve(S3Location.parse(uri), settings, environment);
      } catch (IllegalArgumentException e) {
        throw new UsageException(option + ": " + e.getMessage());
      }
      // an unreachable endpoint, a missing bucket or missing credentials: UncheckedIOException, exit 1
      return S3Store.open(uri, settings, environment, cap, clock);
    }
    if (uri.startsWith("jdbc:")) {
      if (!JdbcVendor.supports(uri)) {
        throw new UsageException(option + ": " + JdbcVendor.describeUnsupported(uri));
      }
      // one connection serves a command; a second lets a sync read one side while writing it
      return JdbcStore.open(uri, 2, cap, clock);
    }
    int colon = uri.indexOf(':');
    String scheme = colon > 0 ? uri.substring(0, colon) : uri;
    throw new UsageException(option + " '" + uri + "': scheme '" + scheme
        + "' is not supported by this build (use file:DIR, git:DIR, http(s)://host:port, jdbc:…, s3://bucket/prefix or memory:)");
  }

  private static Path gitDirectory(String option, String uri) {
    try {
      return GitStore.directoryOf(uri).orElseThrow();
    } catch (IllegalArgumentException e) {
      throw new UsageException(option + " " + e.getMessage());
    }
  }
}
