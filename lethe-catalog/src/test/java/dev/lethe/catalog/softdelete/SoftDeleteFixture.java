package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.CreateRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fresh catalog database (H2 always, PostgreSQL and MariaDB when configured) with catalog {@code
 * main}, namespace {@code db} and helpers to build {@link SoftDeletes} over it.
 */
abstract class SoftDeleteFixture {
  static final long DAY = 86_400_000L;

  @TempDir Path tmp;
  String backend;
  DatabaseSettings settings;
  CatalogDatabase db;
  IcebergCatalogs catalogs;
  LetheCatalog catalog;
  CatalogRow row;
  CredentialCipher cipher;
  final List<AutoCloseable> closeables = new ArrayList<>();

  void open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(), Map.of("s3.secret-access-key", "do-not-leak"));
    catalog = catalogs.catalog("main").orElseThrow();
    row = catalog.row();
    catalog.createNamespace(ParquetTables.NS, Map.of());
    cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
  }

  SoftDeletes softDeletes(boolean enabled, long retentionMs) {
    return new SoftDeletes(db, "default", new SoftDeleteSettings(enabled, retentionMs, 1000), cipher, new FileIOFactory(),
        () -> UUID.randomUUID().toString());
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  static TableIdentifier id(String name) {
    return TableIdentifier.of(ParquetTables.NS, name);
  }

  static Set<Path> filesUnder(String location) throws IOException {
    Path dir = Path.of(location.replaceFirst("^file:", ""));
    if (!Files.exists(dir)) {
      return Set.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return new TreeSet<>(s.filter(Files::isRegularFile).toList());
    }
  }

  DeletionRecord drop(SoftDeletes sd, String name, boolean purge) {
    SoftDeletePlanner.DropDecision d = sd.drop(row, id(name), "alice", purge);
    assertThat(d).isInstanceOf(CreateRecord.class);
    return ((CreateRecord) d).record();
  }

  long recordCount() {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM lethe_entity_deletion").mapTo(Long.class).one());
  }
}
