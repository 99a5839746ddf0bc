package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.CatalogDao;
import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.MetalakeDao;
import dev.lethe.catalog.entity.MetalakeRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.jobs.SynchronousPurge;
import dev.lethe.catalog.jobs.TablePurge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The catalogs of one metalake, each served as a {@link LetheCatalog} with its own FileIO; creates
 * the metalake and catalogs on request (idempotent, safe against a concurrent starter).
 */
public final class IcebergCatalogs implements AutoCloseable {
  private final CatalogDatabase database;
  private final String metalake;
  private final Clock clock;
  private final Supplier<String> ids;
  private final FileIOFactory fileIOFactory = new FileIOFactory();
  private final TablePurge purge;
  private StandalonePurge standalone; // the default purge, created on first use; guarded by this
  private final Map<String, LetheCatalog> open = new ConcurrentHashMap<>();

  /**
   * @param database the entity store
   * @param metalake the metalake whose catalogs are served
   * @param clock source of entry times
   * @param ids source of unique ids
   */
  public IcebergCatalogs(CatalogDatabase database, String metalake, Clock clock, Supplier<String> ids) {
    this.database = database;
    this.metalake = metalake;
    this.clock = clock;
    this.ids = ids;
    // embedded use (tests, tools): the same durable purge job as a server, on an executor of its own
    // with no worker threads; a job a failed attempt leaves PENDING waits for a server's workers
    this.purge = this::standalonePurge;
  }

  private PurgeJobExecutor.Finished standalonePurge(CatalogRow catalog, TableIdentifier id, String createdBy) {
    StandalonePurge service;
    synchronized (this) {
      if (standalone == null) {
        standalone = new StandalonePurge(database, metalake, clock);
      }
      service = standalone;
    }
    return service.purgeTable(catalog, id, createdBy);
  }

  /**
   * @param database the entity store
   * @param metalake the metalake whose catalogs are served
   * @param clock source of entry times
   * @param ids source of unique ids
   * @param purge the synchronous purge of {@code DELETE …?purgeRequested=true} (the server's
   *     {@link SynchronousPurge}), not null
   */
  public IcebergCatalogs(CatalogDatabase database, String metalake, Clock clock, Supplier<String> ids, TablePurge purge) {
    this.purge = Objects.requireNonNull(purge, "purge");
    this.database = database;
    this.metalake = metalake;
    this.clock = clock;
    this.ids = ids;
  }

  /** The metalake served. */
  public String metalake() {
    return metalake;
  }

  /**
   * Creates the metalake and the catalog if they do not exist; an existing catalog is left as it is.
   *
   * @param name catalog name
   * @param warehouse warehouse location for a new catalog
   * @param properties FileIO and catalog properties for a new catalog
   * @return the stored catalog row (the existing one if it was there)
   * @throws IllegalArgumentException if no FileIO can be built for a new catalog's warehouse and
   *     properties (nothing is stored)
   */
  public CatalogRow ensureCatalog(String name, String warehouse, Map<String, String> properties) {
    EntityNames.check("catalog", name);
    MetalakeRow lake = ensureMetalake();
    Optional<CatalogRow> existing = database.jdbi().withHandle(h -> new CatalogDao(h).findByName(lake.metalakeId(), name));
    if (existing.isPresent()) {
      return existing.get();
    }
    try (FileIO check = fileIOFactory.create(warehouse, properties)) {
      // a catalog whose FileIO cannot be built would answer every request with an error: refuse it
    }
    long now = clock.millis();
    CatalogRow row = new CatalogRow(ids.get(), lake.metalakeId(), name, warehouse, properties, now, now);
    try {
      database.jdbi().useHandle(h -> new CatalogDao(h).insert(row));
      return row;
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) { // another server created it first
        return database.jdbi().withHandle(h -> new CatalogDao(h).findByName(lake.metalakeId(), name)).orElseThrow(() -> e);
      }
      throw e;
    }
  }

  /**
   * Sets (or, with a null value, removes) one property of an existing catalog, for settings the
   * server configuration owns at every start rather than only at creation (e.g. {@code
   * allowed-locations}). Call it before the catalog is first served: an open catalog keeps the
   * properties it was opened with.
   *
   * @return the stored catalog row after the change
   * @throws IllegalArgumentException if the catalog does not exist
   */
  public CatalogRow setCatalogProperty(String name, String key, String value) {
    return database.jdbi().inTransaction(h -> {
      CatalogRow row = new MetalakeDao(h).findByName(metalake)
          .flatMap(lake -> new CatalogDao(h).findByName(lake.metalakeId(), name))
          .orElseThrow(() -> new IllegalArgumentException("Catalog does not exist: " + name));
      Map<String, String> props = new java.util.TreeMap<>(row.properties());
      if (value == null) {
        props.remove(key);
      } else {
        props.put(key, value);
      }
      if (props.equals(row.properties())) {
        return row;
      }
      long now = clock.millis();
      new CatalogDao(h).updateProperties(row.catalogId(), props, now);
      return new CatalogRow(row.catalogId(), row.metalakeId(), row.name(), row.warehouse(), props, row.createdAt(), now);
    });
  }

  private MetalakeRow ensureMetalake() {
    Optional<MetalakeRow> existing = database.jdbi().withHandle(h -> new MetalakeDao(h).findByName(metalake));
    if (existing.isPresent()) {
      return existing.get();
    }
    long now = clock.millis();
    MetalakeRow row = new MetalakeRow(ids.get(), metalake, now, now);
    try {
      database.jdbi().useHandle(h -> new MetalakeDao(h).insert(row));
      return row;
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        return database.jdbi().withHandle(h -> new MetalakeDao(h).findByName(metalake)).orElseThrow(() -> e);
      }
      throw e;
    }
  }

  /** The catalog of that name, or empty if the metalake has none. */
  public Optional<LetheCatalog> catalog(String name) {
    LetheCatalog cached = open.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    Optional<CatalogRow> row = database.jdbi().withHandle(h -> new MetalakeDao(h).findByName(metalake)
        .flatMap(lake -> new CatalogDao(h).findByName(lake.metalakeId(), name)));
    return row.map(r -> open.computeIfAbsent(name, n -> new LetheCatalog(database, r, newFileIO(r), purge, clock, ids)));
  }

  /** The FileIO of a catalog: the one place that creates it (local or S3, by warehouse and properties). */
  private FileIO newFileIO(CatalogRow row) {
    return fileIOFactory.create(row.warehouse(), row.properties());
  }

  @Override
  public void close() {
    for (LetheCatalog c : open.values()) {
      try {
        c.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    open.clear();
    synchronized (this) {
      if (standalone != null) {
        standalone.close();
        standalone = null;
      }
    }
  }
}
