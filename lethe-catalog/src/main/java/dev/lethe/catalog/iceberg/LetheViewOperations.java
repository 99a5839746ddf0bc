package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationHeldException;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.WriteConfinement;
import dev.lethe.catalog.entity.ColumnLimits;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.BaseViewOperations;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.util.LocationUtil;
import org.apache.iceberg.view.ViewProperties;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * View operations over the {@code lethe_view} row of one identifier, with the same compare-and-set
 * as tables. Before any metadata file is written the view's location and {@code
 * write.metadata.path} are checked against the catalog's allowed locations, and a registered
 * metadata file must lie inside them ({@link WriteConfinement}; 400, nothing written). A view
 * holds its current metadata file ({@link LocationClaims}, rule 2): an asynchronous view drop
 * deletes it, so a view on a file another entry holds (e.g. a table's metadata file) is refused
 * with 409.
 */
final class LetheViewOperations extends BaseViewOperations {
  private final Jdbi jdbi;
  private final String catalogId;
  private final TableIdentifier identifier;
  private final FileIO io;
  private final Clock clock;
  private final Supplier<String> ids;
  private final AllowedLocations allowed;

  LetheViewOperations(Jdbi jdbi, String catalogId, TableIdentifier identifier, FileIO io, Clock clock,
      Supplier<String> ids, AllowedLocations allowed) {
    this.allowed = allowed;
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.identifier = identifier;
    this.io = io;
    this.clock = clock;
    this.ids = ids;
  }

  @Override
  protected String viewName() {
    return identifier.toString();
  }

  @Override
  protected FileIO io() {
    return io;
  }

  @Override
  protected void doRefresh() {
    Optional<ViewRow> row = jdbi.withHandle(h -> LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
        .flatMap(ns -> new ViewDao(h).find(ns.namespaceId(), identifier.name())));
    if (row.isEmpty()) {
      if (currentMetadataLocation() != null) {
        throw new NoSuchViewException("View does not exist: %s", identifier);
      }
      disableRefresh();
      return;
    }
    // a corrupt metadata file fails at once instead of in Iceberg's 90 s retry loop (MetadataReadRetry)
    String location = row.get().metadataLocation();
    MetadataReadRetry.readCurrent("view", identifier, location,
        () -> refreshFromMetadataLocation(location, MetadataReadRetry::shouldRetry, 20));
  }

  @Override
  protected void doCommit(ViewMetadata base, ViewMetadata metadata) {
    WriteConfinement.checkView(allowed, base, metadata);
    // the row must be storable before a file is written (docs/design/0401-name-and-column-limits.md)
    ColumnLimits.checkMetadataLocation("Cannot write view " + identifier,
        base == null && metadata.metadataFileLocation() != null ? metadata.metadataFileLocation()
            : metadataDirectory(metadata) + "/" + LetheTableOperations.LONGEST_METADATA_FILE_NAME);
    if (base == null && metadata.metadataFileLocation() != null) {
      WriteConfinement.checkViewMetadataFile(allowed, metadata.metadataFileLocation()); // a register
    } else {
      // rule 2, early: the new metadata file must not land inside a location another entry holds
      LocationPath directory = LocationPath.parse(metadataDirectory(metadata));
      String refusal = (base == null ? "Cannot create view " : "Cannot replace view ") + identifier;
      try {
        jdbi.useHandle(h -> LocationClaims.precheckDirectory(h, catalogId, liveOwner(h).orElse(null), directory, refusal));
      } catch (AlreadyExistsException e) {
        // a replace is a commit: 400, not a 409 the client retries (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md)
        throw base == null ? e : new LocationHeldException(e);
      }
    }
    String newLocation = writeNewMetadataIfRequired(metadata);
    long now = clock.millis();
    if (base == null) {
      insert(newLocation, now, metadata.metadataFileLocation() != null ? "Cannot register view " + identifier
          : "Cannot create view " + identifier);
      return;
    }
    String expected = base.metadataFileLocation();
    jdbi.useTransaction(h -> {
      Optional<NamespaceRow> ns = LetheCatalog.findNamespace(h, catalogId, identifier.namespace());
      ViewDao views = new ViewDao(h);
      int swapped = ns.map(n -> views.compareAndSetMetadataLocation(n.namespaceId(), identifier.name(), expected, newLocation, now))
          .orElse(0);
      Optional<ViewRow> row = ns.flatMap(n -> views.find(n.namespaceId(), identifier.name()));
      if (row.isEmpty()) {
        throw new NoSuchViewException("Cannot commit view %s: the view was dropped", identifier);
      }
      if (swapped != 1) {
        throw new CommitFailedException(
            "Cannot commit view %s: metadata location is no longer %s (another commit won)", identifier, expected);
      }
      // the view now holds its new metadata file (what an asynchronous view drop deletes)
      try {
        LocationClaims.acquire(h, catalogId, ClaimOwner.view(row.get().viewId()), List.of(LocationPath.parse(newLocation)), now,
            "Cannot replace view " + identifier);
      } catch (AlreadyExistsException e) {
        throw new LocationHeldException(e);
      }
    });
  }

  /** Where {@code BaseViewOperations} writes the next metadata file of {@code metadata}. */
  private static String metadataDirectory(ViewMetadata metadata) {
    String custom = metadata.properties().get(ViewProperties.WRITE_METADATA_LOCATION);
    return custom != null ? LocationUtil.stripTrailingSlash(custom)
        : LocationUtil.stripTrailingSlash(metadata.location()) + "/metadata";
  }

  private Optional<ClaimOwner> liveOwner(Handle h) {
    return LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
        .flatMap(ns -> new ViewDao(h).find(ns.namespaceId(), identifier.name()))
        .map(row -> ClaimOwner.view(row.viewId()));
  }

  private void insert(String location, long now, String refusal) {
    try {
      jdbi.useTransaction(h -> {
        NamespaceRow ns = LetheCatalog.findNamespaceForUpdate(h, catalogId, identifier.namespace())
            .orElseThrow(() -> new NoSuchNamespaceException(
                "Cannot create view %s: namespace does not exist: %s", identifier, identifier.namespace()));
        if (new TableDao(h).findLive(ns.namespaceId(), identifier.name()).isPresent()) {
          throw new AlreadyExistsException("Table with same name already exists: %s", identifier);
        }
        ViewDao views = new ViewDao(h);
        if (views.find(ns.namespaceId(), identifier.name()).isPresent()) {
          throw new AlreadyExistsException("View already exists: %s", identifier);
        }
        NameGuards.check(h, catalogId, ns, identifier);
        String viewId = ids.get();
        views.insert(new ViewRow(viewId, catalogId, ns.namespaceId(), identifier.name(), location, null, now, now));
        // rule 2: a view holds its metadata file, so one registered on a table's metadata file is refused
        LocationClaims.acquire(h, catalogId, ClaimOwner.view(viewId), List.of(LocationPath.parse(location)), now, refusal);
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "View already exists: %s", identifier);
      }
      throw e;
    }
  }
}
