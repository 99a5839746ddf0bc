package dev.lethe.catalog.entity;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;

/**
 * Secrets shared by every server on one catalog database (table {@code lethe_server_secret}),
 * created by whichever server needs one first (docs/design/0423-signed-page-tokens.md).
 */
public final class ServerSecrets {
  /** The name of the key page tokens are signed with. */
  public static final String PAGE_TOKEN_KEY = "page-token-key";
  /** Length of a created secret, in bytes. */
  public static final int BYTES = 32;

  private final CatalogDatabase database;
  private final SecureRandom random;
  private final Clock clock;

  public ServerSecrets(CatalogDatabase database, SecureRandom random, Clock clock) {
    this.database = database;
    this.random = random;
    this.clock = clock;
  }

  /**
   * The secret of that name: the stored one, or one created now. Servers starting at once agree on
   * one: each inserts its own, all but one lose on the primary key, and every one returns the row
   * that is stored.
   *
   * @param name at most 64 characters
   * @return the secret's bytes, never empty
   * @throws IllegalStateException if the stored row does not decode, or no row can be written or read
   */
  public byte[] loadOrCreate(String name) {
    Optional<byte[]> stored = read(name);
    if (stored.isPresent()) {
      return stored.get();
    }
    byte[] fresh = new byte[BYTES];
    random.nextBytes(fresh);
    try {
      database.jdbi().useHandle(h -> h
          .createUpdate("INSERT INTO lethe_server_secret (name, secret, created_at) VALUES (:name, :secret, :at)")
          .bind("name", name)
          .bind("secret", Base64.getEncoder().encodeToString(fresh))
          .bind("at", clock.millis())
          .execute());
    } catch (JdbiException e) {
      // another server inserted first (a duplicate key): its row is read below; any other failure
      // leaves no row, and the read below says so
    }
    return read(name).orElseThrow(() -> new IllegalStateException(
        "Cannot create server secret " + name + ": no row in lethe_server_secret after the insert"));
  }

  private Optional<byte[]> read(String name) {
    Optional<String> text = database.jdbi().withHandle((Handle h) -> h
        .createQuery("SELECT secret FROM lethe_server_secret WHERE name = :name")
        .bind("name", name)
        .mapTo(String.class)
        .findOne());
    return text.map(t -> {
      try {
        byte[] bytes = Base64.getDecoder().decode(t);
        if (bytes.length == 0) {
          throw new IllegalArgumentException("empty");
        }
        return bytes;
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("Cannot read server secret " + name + " from lethe_server_secret: not base64");
      }
    });
  }
}
