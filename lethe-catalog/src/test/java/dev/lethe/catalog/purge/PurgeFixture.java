package dev.lethe.catalog.purge;

import static org.awaitility.Awaitility.await;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.JdbcBackends;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A real catalog on a real database (H2, or PostgreSQL/MariaDB when configured) whose FileIO is
 * Hadoop's ({@code HadoopFileIO} on the local file system: it resolves {@code ..} and writes {@code
 * .crc} sidecars), with a real worker pool: what the purge tests of issue 9 rules 1 and 4 run on.
 */
final class PurgeFixture implements AutoCloseable {
  static final String HADOOP_FILE_IO = "org.apache.iceberg.hadoop.HadoopFileIO";

  final String backend;
  final Path tmp;
  final DatabaseSettings settings;
  final CatalogDatabase db;
  final IcebergCatalogs catalogs;
  final LetheCatalog catalog;
  final CatalogRow row;
  final CleanupJobEnqueuer enqueuer;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  private final CredentialCipher cipher;

  PurgeFixture(String backend, Path tmp) throws Exception {
    this(backend, tmp, true);
  }

  /** @param workers false: no worker pool until {@link #startPool} (jobs stay PENDING) */
  PurgeFixture(String backend, Path tmp, boolean workers) throws Exception {
    this.backend = backend;
    this.tmp = tmp;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(),
        Map.of(CatalogProperties.FILE_IO_IMPL, HADOOP_FILE_IO));
    catalog = catalogs.catalog("main").orElseThrow();
    row = catalog.row();
    catalog.createNamespace(ParquetTables.NS, Map.of());
    cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
    enqueuer = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());
    if (workers) {
      startPool();
    }
  }

  /** Starts one worker thread on this database. */
  void startPool() {
    AsyncPurgeSettings s = new AsyncPurgeSettings(1, 2, 50, 20, 60_000, 1, 720);
    DeletePool deletes = new DeletePool(s.deleteThreads(), 2);
    PurgeJobRunner runner = new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, s.deleteBatchSize(), n -> {});
    PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db), runner, e -> {}, null);
    closeables.add(pool);
    closeables.add(deletes);
  }

  /** Waits (Awaitility) until the job ends. */
  CleanupJob awaitEnd(long jobId) {
    return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
        .until(() -> job(jobId), j -> !j.state().active());
  }

  static TableIdentifier id(String name) {
    return TableIdentifier.of(ParquetTables.NS, name);
  }

  CleanupJob job(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  /** Drops with an asynchronous purge and waits (Awaitility) until the job ends. */
  CleanupJob purgeAsync(String name) {
    return awaitEnd(enqueuer.dropTable(row, id(name), "alice").jobId());
  }

  static Path path(String location) {
    return Path.of(location.replaceFirst("^file:(//)?", ""));
  }

  /** Every regular file under {@code dir} with its content, for before/after comparisons. */
  static Map<Path, String> snapshot(Path dir) throws IOException {
    Map<Path, String> out = new TreeMap<>();
    if (!Files.exists(dir)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        out.put(p, Long.toString(Files.size(p)) + ":" + Files.getLastModifiedTime(p).toMillis());
      }
    }
    return out;
  }

  static List<Path> files(Path dir) throws IOException {
    return new ArrayList<>(snapshot(dir).keySet());
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    catalogs.close();
    db.close();
    JdbcBackends.drop(backend, settings);
  }
}
