package dev.lethe.server.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.substrate.StoreProviders;
import dev.lethe.store.core.substrate.StoreUriRequest;
import dev.lethe.store.jdbc.JdbcUrls;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

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
 * @param user database user of a {@code jdbc:} store opened with the catalog's credentials
 *     ({@code lethe.jdbc.user}), null to use the URI's own
 * @param password its password, null for none; never printed
 */
public record StoreSettings(String uri, int ancestorCap, int poolSize, Path clockFile, Map<String, String> s3,
    String user, String password) {

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
    if (uri.startsWith("jdbc:") && (user != null || password != null)) {
      // the catalog's database, with the catalog's credentials (docs/design/0434-one-store-for-every-replica.md)
      return dev.lethe.store.jdbc.JdbcStore.open(uri, user, password, poolSize, ancestorCap, clock);
    }
    // any URI a provider on the class path opens (docs/design/0140-store-provider-spi.md)
    return StoreProviders.open(new StoreUriRequest(uri, ancestorCap, clock, Optional.empty(), poolSize, s3,
        System.getenv(), true));
  }

  @Override
  public String toString() {
    return "StoreSettings[uri=" + redactedUri() + ", ancestorCap=" + ancestorCap + ", poolSize=" + poolSize
        + ", clockFile=" + clockFile + ", user=" + user + "]";
  }
}
