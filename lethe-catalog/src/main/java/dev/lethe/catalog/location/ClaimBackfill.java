package dev.lethe.catalog.location;

import dev.lethe.catalog.entity.CatalogDao;
import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives location claims to entries that hold none: rows written before location claims existed
 * (migration V4), so rule 2 holds on an existing database from the first request on
 * (docs/design/0002-location-claims-schema-and-backfill.md). Run by every server at start, before it
 * serves requests; idempotent and safe on several replicas at once (each owner is re-checked under
 * the claims lock before its claims are inserted).
 *
 * <p>A table's roots come from its current metadata file, read through its catalog's FileIO; when
 * it cannot be read (or its catalog is gone) the table is taken to own the directory of its
 * metadata directory ({@link TableRoots#assumedFromMetadataFile}). A view and a view's job claim
 * the metadata file. Existing overlaps (two entries an older server let share a location) cannot
 * be refused after the fact: both keep their claims and a warning names them, and every later
 * change involving them is refused with 409 until one is dropped without purge.
 */
public final class ClaimBackfill {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimBackfill.class);
  private static final int BATCH = 500;

  private final CatalogDatabase database;
  private final CatalogFileIOs fileIOFactory;
  private final Clock clock;
  private final Map<String, Optional<FileIO>> fileIOs = new HashMap<>();

  /**
   * @param database the catalog database (migrated to V4 or later)
   * @param fileIOFactory builds each catalog's FileIO to read table metadata ({@code io.FileIOFactory})
   * @param clock source of the claims' creation times
   */
  public ClaimBackfill(CatalogDatabase database, CatalogFileIOs fileIOFactory, Clock clock) {
    this.database = database;
    this.fileIOFactory = fileIOFactory;
    this.clock = clock;
  }

  /**
   * Gives claims to every claim-holding entry without any.
   *
   * @return how many entries were given claims (0 on a database that needs none: one indexed query
   *     per kind)
   */
  public int run() {
    long started = System.nanoTime();
    int done = 0;
    try {
      for (LocationClaimDao.Unclaimed u : database.jdbi().withHandle(h -> new LocationClaimDao(h).unclaimedJobs())) {
        done += claim(u) ? 1 : 0;
      }
      String after = "";
      while (true) {
        String from = after;
        List<LocationClaimDao.Unclaimed> batch = database.jdbi().withHandle(h -> new LocationClaimDao(h).unclaimedTables(from, BATCH));
        for (LocationClaimDao.Unclaimed u : batch) {
          done += claim(u) ? 1 : 0;
        }
        if (batch.size() < BATCH) {
          break;
        }
        after = batch.get(batch.size() - 1).owner().id();
      }
      after = "";
      while (true) {
        String from = after;
        List<LocationClaimDao.Unclaimed> batch = database.jdbi().withHandle(h -> new LocationClaimDao(h).unclaimedViews(from, BATCH));
        for (LocationClaimDao.Unclaimed u : batch) {
          done += claim(u) ? 1 : 0;
        }
        if (batch.size() < BATCH) {
          break;
        }
        after = batch.get(batch.size() - 1).owner().id();
      }
    } finally {
      fileIOs.values().forEach(io -> io.ifPresent(FileIO::close));
      fileIOs.clear();
    }
    if (done > 0) {
      LOG.info("Location claims backfilled for {} entries in {} ms", done, (System.nanoTime() - started) / 1_000_000);
    }
    return done;
  }

  private boolean claim(LocationClaimDao.Unclaimed u) {
    List<LocationPath> roots;
    try {
      roots = roots(u);
    } catch (RuntimeException e) {
      LOG.warn("Cannot backfill location claims of {}: its metadata location {} does not parse ({}); it holds no "
          + "location until it is registered again", u.owner(), u.metadataLocation(), e.getMessage());
      return false;
    }
    return database.jdbi().inTransaction(h -> {
      LocationClaimDao dao = new LocationClaimDao(h);
      dao.lock();
      if (!dao.findByOwner(u.owner(), true).isEmpty() || LocationClaims.describeHolder(h, u.owner()).isEmpty()) {
        return false; // another replica was first, or the entry is gone
      }
      for (ClaimOverlap.Conflict c : ClaimOverlap.conflicts(roots, u.owner(), dao.overlapping(roots, true))) {
        LOG.warn("Location claims backfill: {} ({}) overlaps {} held by {}; both keep their claims, so every later change "
                + "involving either is refused until one is dropped without purge", u.owner(), c.requested(),
            c.other().root(), LocationClaims.describeHolder(h, c.other().owner()).orElse(c.other().owner().toString()));
      }
      long now = clock.millis();
      for (LocationPath root : roots) {
        dao.insert(u.owner(), root, now);
      }
      return true;
    });
  }

  private List<LocationPath> roots(LocationClaimDao.Unclaimed u) {
    if (u.view()) {
      return List.of(LocationPath.parse(u.metadataLocation()));
    }
    Optional<FileIO> io = fileIOs.computeIfAbsent(u.catalogId(), this::fileIO);
    if (io.isPresent()) {
      try {
        return new ArrayList<>(TableRoots.of(TableMetadataParser.read(io.get(), u.metadataLocation())).roots());
      } catch (RuntimeException e) {
        LOG.warn("Location claims backfill: cannot read metadata {} of {} ({}); claiming its metadata directory's table "
            + "directory instead", u.metadataLocation(), u.owner(), e.toString());
      }
    }
    return TableRoots.assumedFromMetadataFile(u.metadataLocation());
  }

  private Optional<FileIO> fileIO(String catalogId) {
    Optional<CatalogRow> row = database.jdbi().withHandle(h -> new CatalogDao(h).findById(catalogId));
    try {
      return row.map(r -> fileIOFactory.create(r.warehouse(), r.properties()));
    } catch (RuntimeException e) {
      LOG.warn("Location claims backfill: cannot build the FileIO of catalog {} ({})", catalogId, e.toString());
      return Optional.empty();
    }
  }
}
