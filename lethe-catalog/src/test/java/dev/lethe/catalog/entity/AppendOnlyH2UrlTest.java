package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which H2 URLs the catalog opens with {@code REUSE_SPACE=FALSE} (docs/design/0055-h2-appends-its-stores.md). */
class AppendOnlyH2UrlTest {
  @Test
  void anEmbeddedFileDatabaseAppendsItsStores() {
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:file:/d/catalog;DB_CLOSE_ON_EXIT=FALSE"))
        .isEqualTo("jdbc:h2:file:/d/catalog;DB_CLOSE_ON_EXIT=FALSE;REUSE_SPACE=FALSE");
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:/d/catalog")).isEqualTo("jdbc:h2:/d/catalog;REUSE_SPACE=FALSE");
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:./catalog;MODE=PostgreSQL"))
        .isEqualTo("jdbc:h2:./catalog;MODE=PostgreSQL;REUSE_SPACE=FALSE");
  }

  @Test
  void anOperatorsOwnSettingAndDatabasesWithoutALocalFileAreLeftAlone() {
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:file:/d/catalog;reuse_space=TRUE")).isEqualTo("jdbc:h2:file:/d/catalog;reuse_space=TRUE");
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:file:/d/catalog; REUSE_SPACE = FALSE")).isEqualTo("jdbc:h2:file:/d/catalog; REUSE_SPACE = FALSE");
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1")).isEqualTo("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1");
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:tcp://db:9092/~/catalog")).isEqualTo("jdbc:h2:tcp://db:9092/~/catalog");
    assertThat(CatalogDatabase.appendOnlyH2("jdbc:h2:SSL://db/~/catalog")).isEqualTo("jdbc:h2:SSL://db/~/catalog");
  }

  @Test
  void theCatalogDatabaseOpensWithIt(@TempDir Path tmp) throws java.sql.SQLException {
    try (CatalogDatabase db = CatalogDatabase.open(new DatabaseSettings("jdbc:h2:file:" + tmp.resolve("catalog"), null, null, 2))) {
      boolean reused = db.jdbi().<Boolean, java.sql.SQLException>withHandle(h -> ((org.h2.engine.SessionLocal) h.getConnection()
          .unwrap(org.h2.jdbc.JdbcConnection.class).getSession()).getDatabase().getStore().getMvStore().isSpaceReused());
      assertThat(reused).isFalse();
      db.awaitDurable();
    }
  }
}
