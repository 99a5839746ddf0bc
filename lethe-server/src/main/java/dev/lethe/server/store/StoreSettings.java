package dev.lethe.server.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.git.GitStore;
import dev.lethe.store.jdbc.JdbcStore;
import dev.lethe.store.jdbc.JdbcUrls;
import dev.lethe.store.s3.S3Location;
import dev.lethe.store.s3.S3Store;
import java.util.Map;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The store a server serves under {@code /store/v1/} (docs/store.md "The store server").
 *
 * @param uri a {@code file:DIR}, {@code git:DIR} or {@code jdbc:…} store URI, never null; may carry a password,
 *     print it with {@link #redactedUri()}
 * @param ancestorCap ancestors kept per record, at least 1
 * @param poolSize most pooled connections of a {@code jdbc:} store, at least 1
 * @param clockFile for tests only: a file holding the store's "now" in ms since the epoch; null
 *     for the system clock
 * @param s3 the {@code lethe.store.s3.*} keys of an {@code s3:} store (may hold a secret, never
 *     printed); empty for the others
 */
public record StoreSettings(String uri, int ancestorCap, int poolSize, Path clockFile, Map<String, String> s3) {

  /** The URI with any password replaced by {@code ***}. */
  public String redactedUri() {
    return JdbcUrls.redact(uri);
  }

  /**
   * Opens the store (creating a {@code file:} directory, migrating a {@code jdbc:} database, checking
   * an {@code s3:} bucket).
   *
   * @param systemClock the clock used unless {@link #clockFile} is set
   * @throws UncheckedIOException if the directory cannot be created or the database reached
   */
  public Store open(Clock systemClock) {
    Clock clock = clockFile == null ? systemClock : new FileClock(clockFile);
    if (uri.startsWith("jdbc:")) {
      return JdbcStore.open(uri, poolSize, ancestorCap, clock);
    }
    if (uri.startsWith(GitStore.SCHEME)) {
      return GitStore.open(GitStore.directoryOf(uri).orElseThrow(), ancestorCap, clock);
    }
    if (S3Location.supports(uri)) {
      return S3Store.open(uri, s3, System.getenv(), ancestorCap, clock);
    }
    String dir = uri.substring("file:".length());
    if (dir.startsWith("//")) {
      dir = dir.substring(2);
    }
    Path root = Path.of(dir);
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create store directory " + root, e);
    }
    return new FsStore(root, ancestorCap, clock);
  }

  @Override
  public String toString() {
    return "StoreSettings[uri=" + redactedUri() + ", ancestorCap=" + ancestorCap + ", poolSize=" + poolSize
        + ", clockFile=" + clockFile + "]";
  }
}
