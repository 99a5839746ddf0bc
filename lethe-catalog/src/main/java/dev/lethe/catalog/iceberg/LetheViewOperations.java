package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationHeldException;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.WriteConfinement;
import dev.lethe.catalog.entity.ColumnLimits;
import java.util.List;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.BaseViewOperations;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.util.LocationUtil;
import org.apache.iceberg.view.ViewProperties;

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
  private final EntryOperations<ViewRow> entry;

  LetheViewOperations(EntryOperations<ViewRow> entry) {
    this.entry = entry;
  }

  @Override
  protected String viewName() {
    return entry.identifier.toString();
  }

  @Override
  protected void doCommit(ViewMetadata base, ViewMetadata metadata) {
    WriteConfinement.checkView(entry.allowed, base, metadata);
    // the row must be storable before a file is written (docs/design/0401-name-and-column-limits.md)
    ColumnLimits.checkMetadataLocation("Cannot write view " + entry.identifier,
        base == null && metadata.metadataFileLocation() != null ? metadata.metadataFileLocation()
            : metadataDirectory(metadata) + "/" + LetheTableOperations.LONGEST_METADATA_FILE_NAME);
    if (base == null && metadata.metadataFileLocation() != null) {
      WriteConfinement.checkViewMetadataFile(entry.allowed, metadata.metadataFileLocation()); // a register
    } else {
      // rule 2, early: the new metadata file must not land inside a location another entry holds
      LocationPath directory = LocationPath.parse(metadataDirectory(metadata));
      String refusal = (base == null ? "Cannot create view " : "Cannot replace view ") + entry.identifier;
      try {
        entry.jdbi.useHandle(h -> LocationClaims.precheckDirectory(h, entry.catalogId, entry.liveOwner(h).orElse(null), directory, refusal));
      } catch (AlreadyExistsException e) {
        // a replace is a commit: 400, not a 409 the client retries (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md)
        throw base == null ? e : new LocationHeldException(e);
      }
    }
    String newLocation = writeNewMetadataIfRequired(metadata);
    long now = entry.clock.millis();
    if (base == null) {
      // rule 2: a view holds its metadata file, so one registered on a table's metadata file is refused
      entry.insert((ns, viewId) -> new ViewRow(viewId, entry.catalogId, ns.namespaceId(), entry.identifier.name(), newLocation, null,
          now, now), List.of(LocationPath.parse(newLocation)), now,
          metadata.metadataFileLocation() != null ? "Cannot register view " + entry.identifier : "Cannot create view " + entry.identifier);
      return;
    }
    entry.jdbi.useTransaction(h -> {
      String viewId = EntryOperations.swap(h, EntryOperations.Kind.VIEW, "view ", entry.catalogId, entry.identifier,
          base.metadataFileLocation(), newLocation, now);
      // the view now holds its new metadata file (what an asynchronous view drop deletes)
      try {
        LocationClaims.acquire(h, entry.catalogId, ClaimOwner.view(viewId), List.of(LocationPath.parse(newLocation)), now,
            "Cannot replace view " + entry.identifier);
      } catch (AlreadyExistsException e) {
        throw new LocationHeldException(e);
      }
    });
  }

  @Override
  protected void doRefresh() {
    entry.refresh(currentMetadataLocation(), this::disableRefresh,
        location -> refreshFromMetadataLocation(location, MetadataReadRetry::shouldRetry, 20));
  }

  /** Where {@code BaseViewOperations} writes the next metadata file of {@code metadata}. */
  private static String metadataDirectory(ViewMetadata metadata) {
    String custom = metadata.properties().get(ViewProperties.WRITE_METADATA_LOCATION);
    return custom != null ? LocationUtil.stripTrailingSlash(custom)
        : LocationUtil.stripTrailingSlash(metadata.location()) + "/metadata";
  }

  @Override
  protected FileIO io() {
    return entry.io;
  }
}
