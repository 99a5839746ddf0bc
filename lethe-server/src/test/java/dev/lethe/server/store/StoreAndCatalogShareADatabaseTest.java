package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import dev.lethe.store.jdbc.JdbcStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A JDBC store and the catalog in one database (one schema), opened in either order: each keeps
 * its own Flyway history and its own migrations (docs/design/0102-store-migrations.md), with the
 * catalog's and the store's jars on one classpath as in the server and the shaded jar.
 */
class StoreAndCatalogShareADatabaseTest {

  @TempDir Path tmp;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();

  @AfterEach
  void drop() throws Exception {
    databases.close();
  }

  private static Record draft() {
    return Record.draft(new RecordKey("ns", "col", "id"), Kind.DOCUMENT, Body.Inline.text("v"), Meta.EMPTY);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void catalogFirstThenStore(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    try (CatalogDatabase catalog = CatalogDatabase.open(new DatabaseSettings(url, null, null, 2));
        JdbcStore store = JdbcStore.open(url, 2, 32, Clock.systemUTC())) {
      assertThat(store.put(draft(), Optional.empty())).isInstanceOf(Committed.class);
      assertThat(catalog.vendor()).isNotNull();
    }
    // and both reopen
    try (CatalogDatabase catalog = CatalogDatabase.open(new DatabaseSettings(url, null, null, 2));
        JdbcStore store = JdbcStore.open(url, 2, 32, Clock.systemUTC())) {
      assertThat(store.get(draft().key())).isPresent();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void storeFirstThenCatalog(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    try (JdbcStore store = JdbcStore.open(url, 2, 32, Clock.systemUTC())) {
      assertThat(store.put(draft(), Optional.empty())).isInstanceOf(Committed.class);
    }
    try (CatalogDatabase catalog = CatalogDatabase.open(new DatabaseSettings(url, null, null, 2));
        JdbcStore store = JdbcStore.open(url, 2, 32, Clock.systemUTC())) {
      assertThat(store.get(draft().key())).isPresent();
      assertThat(catalog.vendor()).isNotNull();
    }
  }
}
