package dev.lethe.server.config;

import dev.lethe.store.jdbc.JdbcUrls;
import java.util.Locale;
import java.util.Optional;

/**
 * Which store a server serves under {@code /store/v1/}: the one rule, as a pure function of the
 * catalog database, {@code lethe.store.uri} and the old default store directory
 * (docs/design/0434-one-store-for-every-replica.md).
 *
 * <p>A catalog on PostgreSQL or MariaDB may be shared by replicas, so with no store configured the
 * store lives in that database too and every replica serves the same one; an embedded H2 catalog
 * keeps the local {@code file:<data-dir>/store}.
 */
public sealed interface StoreChoice permits StoreChoice.Serve, StoreChoice.Refuse {

  /**
   * Serve this store.
   *
   * @param uri the store URI to open, never null; may carry a password (print it redacted)
   * @param inCatalogDatabase true when it is the catalog's database, opened with the catalog's
   *     {@code lethe.jdbc.user} / {@code lethe.jdbc.password}
   * @param warning one line to log at WARN at start (no password in it), or empty
   */
  record Serve(String uri, boolean inCatalogDatabase, Optional<String> warning) implements StoreChoice {}

  /**
   * Do not start: the new default would set aside an old default store that holds records.
   *
   * @param message one line saying what to set, never null, no password in it
   */
  record Refuse(String message) implements StoreChoice {}

  /**
   * Decides the store.
   *
   * @param catalogUrl the catalog's effective JDBC URL, never null
   * @param configuredUri {@code lethe.store.uri} trimmed, or null when unset
   * @param legacyUri the old default {@code file:<data-dir>/store}, never null
   * @param legacyHoldsRecords whether that directory holds at least one record file
   * @return never null
   */
  static StoreChoice decide(String catalogUrl, String configuredUri, String legacyUri, boolean legacyHoldsRecords) {
    Optional<String> catalogStore = catalogStoreUri(catalogUrl);
    if (configuredUri != null) {
      if (catalogStore.isPresent() && (configuredUri.equals(catalogUrl) || configuredUri.equals(catalogStore.get()))) {
        return new Serve(catalogStore.get(), true, Optional.empty());
      }
      if (catalogStore.isPresent() && isLocal(configuredUri)) {
        return new Serve(configuredUri, false, Optional.of("The store " + JdbcUrls.redact(configuredUri)
            + " (" + ConfigKeys.STORE_URI + ") is local to this server, but the catalog database "
            + JdbcUrls.redact(catalogUrl) + " can be shared: replicas on this catalog each serve their own store"
            + " under /store/v1 (docs/deploy.md)"));
      }
      return new Serve(configuredUri, false, Optional.empty());
    }
    if (catalogStore.isEmpty()) {
      return new Serve(legacyUri, false, Optional.empty());
    }
    if (legacyHoldsRecords) {
      String shared = JdbcUrls.redact(catalogStore.get());
      return new Refuse("Cannot choose the store: " + legacyUri + " (the old default store) holds records, and with "
          + ConfigKeys.STORE_URI + " unset and the catalog on " + JdbcUrls.redact(catalogUrl)
          + " the store would now be that database. Set " + ConfigKeys.STORE_URI + "=" + legacyUri
          + " to keep serving the local store (one per replica), or copy its records over with"
          + " `lethe store sync --store " + shared + " --peer " + legacyUri + "` and set " + ConfigKeys.STORE_URI
          + "=" + shared + " (docs/deploy.md)");
    }
    return new Serve(catalogStore.get(), true, Optional.empty());
  }

  /**
   * The store URI of a catalog database replicas can share (PostgreSQL, MariaDB; a {@code
   * jdbc:mysql:} URL is opened as {@code jdbc:mariadb:}); empty for H2 and anything else.
   */
  static Optional<String> catalogStoreUri(String catalogUrl) {
    if (catalogUrl.startsWith("jdbc:postgresql:") || catalogUrl.startsWith("jdbc:mariadb:")) {
      return Optional.of(catalogUrl);
    }
    if (catalogUrl.startsWith("jdbc:mysql:")) {
      return Optional.of("jdbc:mariadb:" + catalogUrl.substring("jdbc:mysql:".length()));
    }
    return Optional.empty();
  }

  /**
   * Whether a store URI names a store only this server reaches: a directory ({@code file:}, {@code
   * git:}), memory, or an embedded H2 database (not {@code jdbc:h2:tcp:} / {@code ssl:}).
   */
  static boolean isLocal(String storeUri) {
    String uri = storeUri.toLowerCase(Locale.ROOT);
    if (uri.startsWith("jdbc:h2:")) {
      return !(uri.startsWith("jdbc:h2:tcp:") || uri.startsWith("jdbc:h2:ssl:"));
    }
    return uri.startsWith("file:") || uri.startsWith("git:") || uri.startsWith("memory:");
  }
}
