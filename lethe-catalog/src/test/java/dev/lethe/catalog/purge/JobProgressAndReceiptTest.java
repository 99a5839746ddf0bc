package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.lethe.catalog.jobs.CleanupJobListing;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupReceipt;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.FileKind;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.JobProgress;
import dev.lethe.catalog.jobs.KeptReason;
import dev.lethe.catalog.jobs.ListedJob;
import dev.lethe.catalog.jobs.NoSuchCleanupReceiptException;
import dev.lethe.catalog.jobs.PurgeEvent;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.PurgePath;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import dev.lethe.catalog.jobs.SynchronousPurge;
import dev.lethe.catalog.jobs.WorkerIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Progress, lease ownership and receipts of cleanup jobs (docs/design/0445-job-progress-and-receipts.md)
 * on a real Iceberg table written with iceberg-java's writers, on H2, PostgreSQL and MariaDB. The
 * oracle of every count is the table's directory listed before and after, each file classified by
 * the table's metadata read before the purge.
 */
class JobProgressAndReceiptTest {
  @TempDir Path tmp;
  private String backend;
  private DatabaseSettings settings;
  private CatalogDatabase db;
  private IcebergCatalogs catalogs;
  private LetheCatalog catalog;
  private CatalogRow row;
  private String gateName;
  private GatedFileIO.Gate gate;
  private CredentialCipher cipher;
  private CleanupJobEnqueuer enqueuer;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<PurgeEvent> events = new CopyOnWriteArrayList<>();

  private void open(String backend) throws Exception {
    this.backend = backend;
    settings = JdbcBackends.fresh(backend, tmp);
    db = CatalogDatabase.open(settings);
    gateName = UUID.randomUUID().toString();
    gate = GatedFileIO.newGate(gateName);
    catalogs = new IcebergCatalogs(db, "default", Clock.systemUTC(), () -> UUID.randomUUID().toString());
    catalogs.ensureCatalog("main", tmp.resolve("warehouse").toString(),
        Map.of("io-impl", GatedFileIO.class.getName(), "test.gate", gateName));
    catalog = catalogs.catalog("main").orElseThrow();
    row = catalog.row();
    catalog.createNamespace(ParquetTables.NS, Map.of());
    cipher = CredentialCipher.loadOrCreate(null, tmp.resolve("purge.key"));
    enqueuer = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (gate != null) {
      gate.holdOpen.countDown();
      gate.open();
      GatedFileIO.GATES.remove(gateName);
    }
    if (catalogs != null) {
      catalogs.close();
    }
    if (db != null) {
      db.close();
      JdbcBackends.drop(backend, settings);
    }
  }

  private static AsyncPurgeSettings fast(long heartbeatTimeoutMs) {
    return new AsyncPurgeSettings(1, 2, 2, 20, heartbeatTimeoutMs, 1, 720, 20, 100);
  }

  private PurgeJobRunner runner(AsyncPurgeSettings s) {
    DeletePool deletes = new DeletePool(s.deleteThreads(), Math.max(1, s.deleteThreads()));
    closeables.add(0, deletes);
    return new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, s.deleteBatchSize(), n -> {});
  }

  private void pool(AsyncPurgeSettings s) {
    PurgeWorkerPool pool = new PurgeWorkerPool(db, s, JobClaimer.forDatabase(db), runner(s), events::add, null);
    closeables.add(0, pool);
  }

  private CleanupJob job(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  private static Map<Path, Long> filesUnder(String location) throws IOException {
    Path dir = Path.of(location.replaceFirst("^file:", ""));
    Map<Path, Long> out = new HashMap<>();
    if (!Files.exists(dir)) {
      return out;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        out.put(p, Files.size(p));
      }
    }
    return out;
  }

  /** Every file the table's metadata names, by kind; anything else under its location is {@code OTHER}. */
  private static Map<Path, FileKind> classify(TableMetadata m, FileIO io) throws IOException {
    Map<Path, FileKind> kinds = new HashMap<>();
    for (Snapshot s : m.snapshots()) {
      kinds.put(path(s.manifestListLocation()), FileKind.MANIFEST_LISTS);
      for (ManifestFile mf : s.allManifests(io)) {
        kinds.put(path(mf.path()), FileKind.MANIFESTS);
        if (mf.content() == org.apache.iceberg.ManifestContent.DATA) {
          try (ManifestReader<DataFile> r = ManifestFiles.read(mf, io, m.specsById())) {
            r.forEach(f -> kinds.put(path(f.location()), FileKind.DATA_FILES));
          }
        } else {
          try (ManifestReader<DeleteFile> r = ManifestFiles.readDeleteManifest(mf, io, m.specsById())) {
            r.forEach(f -> kinds.put(path(f.location()), FileKind.DELETE_FILES));
          }
        }
      }
    }
    for (StatisticsFile f : m.statisticsFiles()) {
      kinds.put(path(f.path()), FileKind.STATISTICS_FILES);
    }
    for (PartitionStatisticsFile f : m.partitionStatisticsFiles()) {
      kinds.put(path(f.path()), FileKind.STATISTICS_FILES);
    }
    m.previousFiles().forEach(e -> kinds.put(path(e.file()), FileKind.METADATA_FILES));
    kinds.put(path(m.metadataFileLocation()), FileKind.METADATA_FILES);
    return kinds;
  }

  private static Path path(String location) {
    return Path.of(location.replaceFirst("^file:", ""));
  }

  /** Files gone between the two listings, counted per kind (the oracle). */
  private static Map<FileKind, Long> goneByKind(Map<Path, Long> before, Map<Path, Long> after, Map<Path, FileKind> kinds) {
    Map<FileKind, Long> out = new EnumMap<>(FileKind.class);
    for (FileKind k : FileKind.values()) {
      out.put(k, 0L);
    }
    for (Path p : before.keySet()) {
      if (!after.containsKey(p)) {
        out.merge(kinds.getOrDefault(p, FileKind.OTHER), 1L, Long::sum);
      }
    }
    return out;
  }

  private static Map<FileKind, Long> filesByKind(JobProgress tally) {
    Map<FileKind, Long> out = new EnumMap<>(FileKind.class);
    tally.deletedByKind().forEach((k, c) -> out.put(k, c.files()));
    return out;
  }

  private static long bytesOf(Map<Path, Long> sizes, Map<Path, FileKind> kinds, FileKind kind) {
    return sizes.entrySet().stream().filter(e -> kinds.get(e.getKey()) == kind).mapToLong(Map.Entry::getValue).sum();
  }

  private static void await(String what, java.util.concurrent.Callable<Boolean> condition) {
    Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(condition);
  }

  private Table richTable(String name) {
    return ParquetTables.createRichTable(catalog, name,
        Map.of(TableProperties.DELETE_MODE, "merge-on-read", TableProperties.UPDATE_MODE, "merge-on-read"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void progressAdvancesUnderTheOwnersNameAndTheReceiptCountsWhatWasDeletedPerKind(String backend) throws Exception {
    open(backend);
    Table table = richTable("t");
    TableMetadata metadata = ParquetTables.metadata(table);
    Map<Path, FileKind> kinds = classify(metadata, table.io());
    Map<Path, Long> before = filesUnder(table.location());
    long contentFiles = kinds.values().stream().filter(k -> k == FileKind.DATA_FILES || k == FileKind.DELETE_FILES).count();
    // hold the manifests phase: the data and delete files are gone and counted, the job still RUNNING
    gate.holdIf = p -> p.endsWith(".avro") && !Path.of(p).getFileName().toString().startsWith("snap-");
    CleanupJob job = enqueuer.dropTable(row, TableIdentifier.of(ParquetTables.NS, "t"), "alice");
    CleanupJobListing listing = new CleanupJobListing(db, 10_000);
    pool(fast(10_000));

    await("the manifests phase to run", () -> "MANIFESTS".equals(job(job.jobId()).activity().phase()));
    ListedJob running = listing.job(row.catalogId(), "main", job.jobId());
    assertThat(running.job().state()).isEqualTo(CleanupJobState.RUNNING);
    assertThat(running.job().activity().filesDeleted()).isEqualTo(contentFiles);
    assertThat(running.job().activity().bytesDeleted())
        .isEqualTo(bytesOf(before, kinds, FileKind.DATA_FILES) + bytesOf(before, kinds, FileKind.DELETE_FILES));
    assertThat(running.job().activity().ownerHost()).isEqualTo(WorkerIdentity.current().host());
    assertThat(running.job().activity().ownerPid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(running.job().activity().purgePath()).isEqualTo(PurgePath.ASYNC);
    assertThat(running.stale()).isFalse();
    assertThat(running.leaseAgeMs()).isNotNull().isBetween(0L, 10_000L);
    gate.holdOpen.countDown();

    await("the job to succeed", () -> job(job.jobId()).state() == CleanupJobState.SUCCEEDED);
    Map<Path, Long> after = filesUnder(table.location());
    assertThat(after).isEmpty();
    CleanupJob done = job(job.jobId());
    assertThat(done.activity().ownerHost()).isNull();
    assertThat(done.activity().ownerPid()).isNull();
    assertThat(done.activity().phase()).isNull();
    assertThat(done.activity().filesDeleted()).isEqualTo(before.size()).isGreaterThan(contentFiles);
    assertThat(listing.job(row.catalogId(), "main", job.jobId()).leaseAgeMs()).isNull();

    CleanupReceipt receipt = listing.receipt(row.catalogId(), "main", job.jobId());
    assertThat(receipt.state()).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(receipt.purgePath()).isEqualTo(PurgePath.ASYNC);
    assertThat(receipt.createdBy()).isEqualTo("alice");
    assertThat(receipt.firstClaimedAt()).isNotNull().isBetween(receipt.createdAt(), receipt.endedAt());
    assertThat(filesByKind(receipt.tally())).isEqualTo(goneByKind(before, after, kinds));
    assertThat(receipt.tally().files()).isEqualTo(before.size());
    for (FileKind k : List.of(FileKind.DATA_FILES, FileKind.DELETE_FILES, FileKind.MANIFESTS, FileKind.STATISTICS_FILES)) {
      assertThat(receipt.tally().deletedByKind().get(k).bytes()).as(k.name()).isEqualTo(bytesOf(before, kinds, k));
      assertThat(receipt.tally().deletedByKind().get(k).unknownSizes()).as(k.name()).isZero();
    }
    // manifest lists and metadata files carry no size in the metadata: the bytes are a lower bound
    assertThat(receipt.tally().unknownSizes())
        .isEqualTo(goneByKind(before, after, kinds).get(FileKind.MANIFEST_LISTS)
            + goneByKind(before, after, kinds).get(FileKind.METADATA_FILES));
    assertThat(receipt.tally().leftovers().count()).isZero();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
        events.stream().anyMatch(e -> e instanceof PurgeEvent.PurgeCompleted c && c.receipt() != null
            && c.receipt().receiptId() == receipt.receiptId()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aFailedPurgeOnAMissingManifestLeavesAReceiptNamingItKeptAndCountingWhatWent(String backend) throws Exception {
    open(backend);
    Table table = richTable("t");
    TableMetadata metadata = ParquetTables.metadata(table);
    Map<Path, FileKind> kinds = classify(metadata, table.io());
    ManifestFile missing = metadata.currentSnapshot().dataManifests(table.io()).get(0);
    Files.delete(path(missing.path()));
    Map<Path, Long> before = filesUnder(table.location());
    CleanupJob job = enqueuer.dropTable(row, TableIdentifier.of(ParquetTables.NS, "t"), "alice");
    pool(fast(10_000));

    await("the job to fail", () -> job(job.jobId()).state() == CleanupJobState.FAILED);
    Map<Path, Long> after = filesUnder(table.location());
    assertThat(after).isNotEmpty();
    CleanupReceipt receipt = new CleanupJobListing(db).receipt(row.catalogId(), "main", job.jobId());
    assertThat(receipt.state()).isEqualTo(CleanupJobState.FAILED);
    assertThat(receipt.lastError()).contains(missing.path());
    assertThat(filesByKind(receipt.tally())).isEqualTo(goneByKind(before, after, kinds));
    assertThat(receipt.tally().files()).isEqualTo(before.size() - after.size()).isPositive();
    assertThat(receipt.tally().kept()).containsKey(KeptReason.UNREADABLE_MANIFEST);
    assertThat(receipt.tally().kept().get(KeptReason.UNREADABLE_MANIFEST).sample()).contains(missing.path());
    assertThat(job(job.jobId()).activity().ownerHost()).isNull();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
        events.stream().anyMatch(e -> e instanceof PurgeEvent.PurgeFailed f && f.receipt() != null
            && f.receipt().receiptId() == receipt.receiptId()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aWorkerThatStoppedHeartbeatingIsStaleAndCannotOverwriteTheProgressOfTheNextOwner(String backend)
      throws Exception {
    open(backend);
    richTable("t");
    long timeout = 2000; // short, but long enough for a cold first listing right after the claim
    CleanupJob enqueued = enqueuer.dropTable(row, TableIdentifier.of(ParquetTables.NS, "t"), "alice");
    CleanupJobListing listing = new CleanupJobListing(db, timeout);
    // a worker claims it and then never heartbeats (no LeaseHeartbeat runs in this test)
    JobClaimer.Claimed first = JobClaimer.forDatabase(db).claim(timeout).orElseThrow();
    assertThat(first.job().jobId()).isEqualTo(enqueued.jobId());
    assertThat(listing.job(row.catalogId(), "main", enqueued.jobId()).stale()).isFalse();

    await("the lease to go stale", () -> listing.job(row.catalogId(), "main", enqueued.jobId()).stale());
    ListedJob stale = listing.job(row.catalogId(), "main", enqueued.jobId());
    assertThat(stale.leaseAgeMs()).isGreaterThanOrEqualTo(timeout);
    assertThat(stale.job().activity().ownerPid()).isEqualTo(ProcessHandle.current().pid());

    JobClaimer.Claimed second = JobClaimer.forDatabase(db).claim(timeout).orElseThrow();
    RunProgress secondRun = new RunProgress(db, second.job(), second.lease(), System::nanoTime);
    secondRun.tally().deleted(FileKind.DATA_FILES, 3, 300, 0);
    assertThat(secondRun.start("DATA_AND_DELETE_FILES")).isTrue();

    RunProgress firstRun = new RunProgress(db, first.job(), first.lease(), System::nanoTime);
    firstRun.tally().deleted(FileKind.DATA_FILES, 99, 9900, 0);
    assertThat(firstRun.flush()).isFalse();
    assertThat(first.lease().lost()).isTrue();
    assertThat(firstRun.finished(dev.lethe.catalog.jobs.PurgePhase.DATA_AND_DELETE_FILES, 0)).isFalse();

    CleanupJob now = job(enqueued.jobId());
    assertThat(now.activity().filesDeleted()).isEqualTo(3);
    assertThat(now.activity().bytesDeleted()).isEqualTo(300);
    assertThat(now.purgedThrough()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aSynchronousPurgeLeavesAReceiptThatOutlivesThePruningOfItsJobRow(String backend) throws Exception {
    open(backend);
    Table table = richTable("t");
    Map<Path, Long> before = filesUnder(table.location());
    AsyncPurgeSettings s = fast(10_000);
    PurgeJobExecutor executor = new PurgeJobExecutor(db, s, runner(s), events::add, null);
    closeables.add(0, executor);
    PurgeJobExecutor.Finished finished = new SynchronousPurge(enqueuer, executor, () -> {})
        .purgeTable(row, TableIdentifier.of(ParquetTables.NS, "t"), "bob");
    assertThat(finished.state()).isEqualTo(CleanupJobState.SUCCEEDED);
    assertThat(finished.receipt()).isNotNull();
    long jobId = finished.job().jobId();

    int pruned = db.jdbi().withHandle(h -> new CleanupJobDao(h).pruneTerminal(Long.MAX_VALUE));
    assertThat(pruned).isEqualTo(1);
    java.util.Optional<CleanupJob> gone = db.jdbi().withHandle(h -> new CleanupJobDao(h).find(jobId));
    assertThat(gone).isEmpty();

    CleanupReceipt receipt = new CleanupJobListing(db).receipt(row.catalogId(), "main", jobId);
    assertThat(receipt.receiptId()).isEqualTo(finished.receipt().receiptId());
    assertThat(receipt.purgePath()).isEqualTo(PurgePath.SYNC);
    assertThat(receipt.createdBy()).isEqualTo("bob");
    assertThat(receipt.tally().files()).isEqualTo(before.size());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new CleanupJobListing(db).receipt("other", "x", jobId))
        .isInstanceOf(NoSuchCleanupReceiptException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new CleanupJobListing(db).receipt(row.catalogId(), "main",
        jobId + 1)).isInstanceOf(NoSuchCleanupReceiptException.class);
  }
}
