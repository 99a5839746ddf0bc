package dev.lethe.server;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.DatabaseSettings;
import dev.lethe.catalog.entity.ServerSecrets;
import dev.lethe.catalog.iceberg.IcebergCatalogs;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.softdelete.PurgePreviews;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.ClaimBackfill;
import dev.lethe.catalog.drop.Drops;
import dev.lethe.catalog.drop.AsyncPurgeService;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJobListing;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.JobControl;
import dev.lethe.catalog.jobs.PurgeMetrics;
import dev.lethe.catalog.jobs.PurgeWorkerPool;
import dev.lethe.catalog.jobs.SynchronousPurge;
import dev.lethe.catalog.purge.PurgeJobRunner;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.jobs.LoggingPurgeEventListener;
import dev.lethe.catalog.jobs.PurgeEvent;
import dev.lethe.catalog.jobs.PurgeEventListener;
import dev.lethe.catalog.softdelete.SoftDeleteExpiry;
import dev.lethe.catalog.softdelete.SoftDeleteMetrics;
import dev.lethe.catalog.softdelete.SoftDeletes;
import dev.lethe.server.config.AsyncPurgeConfig;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ServerConfigLoader;
import dev.lethe.server.config.SoftDeleteConfig;
import dev.lethe.server.config.StoreConfig;
import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.store.StoreSettings;
import dev.lethe.store.core.Store;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.iceberg.io.CloseableGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the server is made of, opened in dependency order: the catalog database, the store, the
 * delete pool and the purge executor, the catalogs (whose synchronous purge runs on that executor),
 * the purge workers, the soft deletions and their expiry (a periodic task of the workers), the drop
 * service (docs/design/0215-one-http-edge-and-composition-root.md §3). Each is registered for
 * closing as it opens, so a start that fails closes exactly what opened, newest first, and {@link
 * #close()} does the same after the HTTP server stopped.
 */
final class ServerComponents implements AutoCloseable {
  /** Metalake created and served on start. */
  static final String METALAKE = "default";
  /** Catalog created on first start; the default {@code warehouse}. */
  static final String CATALOG = "main";

  private static final Logger LOG = LoggerFactory.getLogger(ServerComponents.class);

  private final Opened opened;

  final CatalogDatabase database;
  final Store store;
  final StoreSettings storeSettings;
  final IcebergCatalogs catalogs;
  final AsyncPurgeService purge;
  final SoftDeletes softDeletes;
  final PurgePreviews purgePreviews;
  final Drops drops;
  final CleanupJobListing cleanupJobs;
  final JobControl jobControl;
  final dev.lethe.catalog.softdelete.JobEndings jobEndings;
  final dev.lethe.catalog.drop.ProtectionControl protections;
  final dev.lethe.catalog.jobs.Holds holds;
  final dev.lethe.catalog.softdelete.CatalogSummaries summaries;
  final PageTokenKey pageTokens;
  final Readiness readiness;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  private ServerComponents(ServerConfig config, Clock clock, Opened opened) {
    this.opened = opened;
    // before either side of the purge <-> expiry wake-up exists
    Wakeups wakeups = new Wakeups();
    // before the catalog database opens: a refused store choice stops start-up with nothing opened
    storeSettings = StoreConfig.settings(config);
    // one line at every start: replicas on a shared catalog that each serve a local store
    // (docs/design/0434-one-store-for-every-replica.md)
    StoreConfig.choice(config).warning().ifPresent(LOG::warn);
    // the process's own meters first: JVM memory, GC, threads, class loading, CPU, uptime, file
    // descriptors (docs/design/0433-observability.md)
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    JvmGcMetrics gc = opened.add(new JvmGcMetrics());
    gc.bindTo(registry);
    database = opened.add(CatalogDatabase.open(new DatabaseSettings(
        config.effectiveJdbcUrl(), config.jdbcUser(), config.jdbcPassword(), config.jdbcPoolSize()), registry));
    AsyncPurgeSettings purgeSettings = AsyncPurgeConfig.settings(config.properties());
    store = storeSettings.open(clock);
    if (store instanceof AutoCloseable closeable) {
      opened.add(closeable);
    }
    CredentialCipher cipher = CredentialCipher.loadOrCreate(AsyncPurgeConfig.encryptionKey(config.properties()),
        config.dataDir().resolve("purge.key"));
    PurgeEventListener logging = new LoggingPurgeEventListener();
    PurgeEventListener listener = new PurgeEventListener() {
      @Override
      public void onEvent(PurgeEvent event) {
        logging.onEvent(event);
        // a succeeded cleanup job lets the expiry timer finalize its deletion record at once
        if (event instanceof PurgeEvent.PurgeCompleted) {
          wakeups.wakeExpiry();
        }
      }

      // the audit line of every operator action (docs/design/0447-operator-events.md)
      @Override
      public void onOperatorEvent(dev.lethe.catalog.jobs.OperatorEvent event) {
        logging.onOperatorEvent(event);
      }
    };
    FileIOFactory fileIOs = new FileIOFactory();
    PurgeMetrics metrics = new PurgeMetrics(registry, database, clock);
    // one server-wide delete pool: the synchronous purge and the async workers share it (docs/design/0201-cleanup-jobs.md §5)
    DeletePool deletes = DeletePool.of(purgeSettings);
    // one executor for the synchronous purge and the workers: one lease heartbeat, one failure policy
    // (docs/design/0051-synchronous-purge-is-a-durable-job.md); built before the catalogs, whose
    // dropTable(id, true) runs it (docs/design/0210-catalog-drop-and-jobs-layout.md)
    PurgeJobExecutor executor = new PurgeJobExecutor(database, purgeSettings, new PurgeJobRunner(database, cipher,
        fileIOs, deletes, purgeSettings.deleteBatchSize(), metrics::filesDeleted), listener, metrics);
    CleanupJobEnqueuer enqueuer = new CleanupJobEnqueuer(database, METALAKE, cipher, fileIOs);
    catalogs = opened.add(new IcebergCatalogs(database, METALAKE, clock, () -> UUID.randomUUID().toString(),
        new SynchronousPurge(enqueuer, executor, wakeups::wakePurge)));
    // registered after the catalogs, so they close before the catalogs' FileIO (docs/design/0410-operations.md §4)
    opened.add(deletes);
    opened.add(executor);
    java.util.Optional<java.nio.file.Path> warehouse = ensureMainCatalog(config);
    // rows older than location claims get theirs before the first request and the first worker (docs/design/0002)
    new ClaimBackfill(database, new FileIOFactory(), clock).run();
    PurgeWorkerPool workers = opened.add(new PurgeWorkerPool(database, purgeSettings, JobClaimer.forDatabase(database),
        executor));
    wakeups.purgeWakesBy(workers::wakeUp);
    readiness = opened.add(new Readiness(database,
        WritablePaths.h2File(config.effectiveJdbcUrl()).map(file -> file.toAbsolutePath().getParent()),
        store, WritablePaths.storeDirectory(config), warehouse, workers::isRunning));
    purge = new AsyncPurgeService(enqueuer, workers, listener);
    purgePreviews = new PurgePreviews(database, new FileIOFactory());
    softDeletes = new SoftDeletes(database, METALAKE, SoftDeleteConfig.settings(config.properties()),
        cipher, new FileIOFactory(), () -> UUID.randomUUID().toString());
    // a periodic task of the workers; runs whatever the flag says: existing records still expire when
    // new ones are off (docs/design/0202-soft-deletion.md §7)
    new SoftDeleteMetrics(registry, database, clock);
    SoftDeleteExpiry expiry = opened.add(new SoftDeleteExpiry(softDeletes, wakeups::wakePurge, workers));
    wakeups.expiryWakesBy(expiry::wakeUp);
    // one drop service (one DropPlanner decision) behind the Iceberg and the management DELETE
    drops = new Drops(purge, softDeletes);
    cleanupJobs = new CleanupJobListing(database, purgeSettings.heartbeatTimeoutMs());
    // every operator action tells the same listener (docs/design/0447-operator-events.md)
    jobControl = new JobControl(database, workers::wakeUp, listener);
    jobEndings = new dev.lethe.catalog.softdelete.JobEndings(database, new FileIOFactory(), () -> UUID.randomUUID().toString(),
        listener);
    protections = new dev.lethe.catalog.drop.ProtectionControl(database, clock, listener); // docs/design/0441-drop-protection.md
    holds = new dev.lethe.catalog.jobs.Holds(database, () -> UUID.randomUUID().toString(), workers::wakeUp, listener); // docs/design/0444-legal-holds.md
    summaries = new dev.lethe.catalog.softdelete.CatalogSummaries(database); // docs/design/0450-catalog-summary.md
    // one key in the catalog database, so every replica on it accepts the others' page tokens
    // (docs/design/0423-signed-page-tokens.md)
    pageTokens = PageTokenKey.of(new ServerSecrets(database, new SecureRandom(), clock)
        .loadOrCreate(ServerSecrets.PAGE_TOKEN_KEY));
  }

  /**
   * Opens every component. The database is opened (and migrated), catalog {@code main} created if
   * missing, and its configured locations checked.
   *
   * @throws ConfigException for a bad catalog, store or purge setting (the message names the key)
   * @throws RuntimeException if the database or the store cannot be opened; nothing stays open
   */
  static ServerComponents open(ServerConfig config, Clock clock) {
    return open(config, clock, new Opened(component -> { }));
  }

  /** {@link #open(ServerConfig, Clock)} into {@code opened} (a test watches what closes). */
  static ServerComponents open(ServerConfig config, Clock clock, Opened opened) {
    try {
      return new ServerComponents(config, clock, opened);
    } catch (RuntimeException e) {
      opened.close();
      throw e;
    }
  }

  /** @return the local warehouse directory of {@code main}, empty for an object store */
  private java.util.Optional<java.nio.file.Path> ensureMainCatalog(ServerConfig config) {
    String initialAllowed = catalogProperties(config).get(AllowedLocations.PROPERTY);
    if (initialAllowed != null) {
      try {
        AllowedLocations.of("/", Map.of(AllowedLocations.PROPERTY, initialAllowed)); // checked before it is stored
      } catch (IllegalArgumentException e) {
        throw new ConfigException("Invalid " + ConfigKeys.CATALOG_PROPERTIES + AllowedLocations.PROPERTY + ": " + e.getMessage());
      }
    }
    try {
      catalogs.ensureCatalog(CATALOG, config.effectiveWarehouse(), catalogProperties(config));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Invalid " + ConfigKeys.WAREHOUSE + ": " + e.getMessage());
    }
    String allowed = ServerConfigLoader.allowedLocations(config.properties());
    if (allowed != null) {
      catalogs.setCatalogProperty(CATALOG, AllowedLocations.PROPERTY, allowed.isEmpty() ? null : allowed);
    }
    try {
      catalogs.catalog(CATALOG); // opened now, so a warehouse or allowed location that does not parse stops start-up
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Invalid allowed locations of catalog " + CATALOG + " (" + ConfigKeys.WAREHOUSE
          + ", " + ConfigKeys.ALLOWED_LOCATIONS + " or " + ConfigKeys.CATALOG_PROPERTIES + AllowedLocations.PROPERTY
          + "): " + e.getMessage());
    }
    // the warehouse main really has (set on its first start), when it is local
    java.util.Optional<java.nio.file.Path> warehouse =
        WritablePaths.localWarehouse(catalogs.catalog(CATALOG).map(c -> c.row().warehouse()).orElse(""));
    warehouse.ifPresent(dir -> WritablePaths.probe(new WritablePaths.Target(
        "warehouse of catalog " + CATALOG + " (" + ConfigKeys.WAREHOUSE + ")", dir, false)));
    return warehouse;
  }

  /** The warehouse catalog {@code main} really has (the stored one: the key sets it on the first start only). */
  String mainWarehouse() {
    return catalogs.catalog(CATALOG).map(c -> c.row().warehouse()).orElse("");
  }

  /** FileIO and catalog properties of {@code main} at its creation: keys under {@link ConfigKeys#CATALOG_PROPERTIES}. */
  private static Map<String, String> catalogProperties(ServerConfig config) {
    Map<String, String> props = new TreeMap<>();
    config.properties().forEach((k, v) -> {
      if (k.startsWith(ConfigKeys.CATALOG_PROPERTIES) && k.length() > ConfigKeys.CATALOG_PROPERTIES.length()) {
        props.put(k.substring(ConfigKeys.CATALOG_PROPERTIES.length()), v);
      }
    });
    return props;
  }

  /** Closes the store under requests still running at the stop (docs/design/0410-operations.md §4); closed again by {@link #close()}. */
  void closeStoreEarly() {
    if (store instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("Cannot close the store: {}", e.toString());
      }
    }
  }

  /** Closes every component, newest first; a failure is logged and the rest still close. Idempotent. */
  @Override
  public void close() {
    opened.close();
  }

  /**
   * What opened so far, closed newest first. A {@link CloseableGroup} closes in the order its
   * members were added, so each component opened becomes a new group of itself then the older ones.
   */
  static final class Opened {
    private final Consumer<AutoCloseable> closed;
    private CloseableGroup group = quiet(new CloseableGroup());

    /** @param closed told of each component once its close returned */
    Opened(Consumer<AutoCloseable> closed) {
      this.closed = closed;
    }

    <T extends AutoCloseable> T add(T component) {
      CloseableGroup newer = quiet(new CloseableGroup());
      newer.addCloseable((AutoCloseable) () -> {
        component.close();
        closed.accept(component);
      });
      newer.addCloseable(group);
      group = newer;
      return component;
    }

    void close() {
      try {
        group.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e); // not reached: the groups suppress close failures
      }
    }

    private static CloseableGroup quiet(CloseableGroup group) {
      group.setSuppressCloseFailure(true);
      return group;
    }
  }
}
