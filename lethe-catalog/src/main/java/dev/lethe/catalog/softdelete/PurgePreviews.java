package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.io.UnreadableMetadataException;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.purge.PurgeConfinement;
import dev.lethe.catalog.purge.PurgePlanner;
import dev.lethe.catalog.purge.PurgePreview;
import dev.lethe.catalog.purge.PurgeScope;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

/**
 * Previews the purge of a live or soft-deleted (retained) table by name: the live table's current
 * metadata, else the retained deletion's, confined and planned as the purge job would
 * (docs/design/0442-purge-preview.md). Reads the catalog database and storage only; deletes,
 * claims and locks nothing.
 */
public final class PurgePreviews {
  private final CatalogDatabase database;
  private final FileIOFactory fileIOFactory;
  private final PurgePlanner planner = new PurgePlanner();

  /**
   * @param database the catalog database, not null
   * @param fileIOFactory builds the catalog's FileIO (the one the purge job uses), not null
   */
  public PurgePreviews(CatalogDatabase database, FileIOFactory fileIOFactory) {
    this.database = Objects.requireNonNull(database, "database");
    this.fileIOFactory = Objects.requireNonNull(fileIOFactory, "fileIOFactory");
  }

  /**
   * One preview.
   *
   * @param state {@code LIVE} or {@code DELETED} (a retained soft deletion)
   * @param report what the purge would delete and keep; null when {@code wouldFail} is set
   * @param wouldFail why the purge would fail before deleting anything (an unreadable manifest list,
   *     a location that does not parse), else null
   */
  public record Previewed(String state, PurgePreview.Report report, String wouldFail) {}

  /**
   * Previews the purge of {@code id}: its live table, else its retained deletion.
   *
   * @param catalog the catalog, not null
   * @param id the table, not null
   * @param sample paths per phase and per keep reason, at least 0
   * @return empty when the namespace does not exist or neither a live table nor a retained deletion
   *     holds the name
   * @throws UnreadableMetadataException when the table's metadata file cannot be read or parsed
   *     (the purge could not run either)
   */
  public Optional<Previewed> preview(CatalogRow catalog, TableIdentifier id, int sample) {
    Optional<Found> found = database.background().withHandle(h -> {
      Optional<NamespaceRow> ns = RetainedTables.namespace(h, catalog, id.namespace());
      if (ns.isEmpty()) {
        return Optional.<Found>empty();
      }
      TableDao tables = new TableDao(h);
      Optional<TableRow> live = tables.find(ns.get().namespaceId(), id.name());
      if (live.isPresent()) {
        return Optional.of(new Found("LIVE", live.get().metadataLocation(), ClaimOwner.table(live.get().tableId())));
      }
      Optional<TableRow> retained = tables.findRetained(ns.get().namespaceId(), id.name());
      if (retained.isEmpty()) {
        return Optional.<Found>empty();
      }
      // once a purge is claimed, the table's location claims belong to its job
      Long job = new DeletionDao(h).find(retained.get().deletionId()).map(DeletionRecord::purgeJobId).orElse(null);
      ClaimOwner owner = job != null ? ClaimOwner.job(job) : ClaimOwner.table(retained.get().tableId());
      return Optional.of(new Found("DELETED", retained.get().metadataLocation(), owner));
    });
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Found f = found.get();
    try (FileIO io = fileIOFactory.create(catalog.warehouse(), catalog.properties())) {
      TableMetadata metadata;
      try {
        metadata = TableMetadataParser.read(io, f.metadataLocation());
      } catch (RuntimeException e) {
        throw new UnreadableMetadataException("table", id.toString(), f.metadataLocation(), e);
      }
      PurgeScope scope;
      try {
        scope = PurgeConfinement.confine(database, f.owner(), metadata);
      } catch (InvalidLocationException e) {
        return Optional.of(new Previewed(f.state(), null, "cannot confine the purge: " + e.getMessage()));
      }
      try {
        return Optional.of(new Previewed(f.state(), PurgePreview.preview(io, metadata, scope, planner, sample), null));
      } catch (InvalidLocationException e) {
        return Optional.of(new Previewed(f.state(), null, "cannot read a manifest list: " + e.getMessage()));
      } catch (RuntimeException e) {
        // the purge job fails the same way before deleting anything (PurgeJobRunner's plan step)
        return Optional.of(new Previewed(f.state(), null, "cannot read a manifest list of " + f.metadataLocation()
            + ": " + String.valueOf(e.getMessage()).replace('\n', ' ')));
      }
    }
  }

  private record Found(String state, String metadataLocation, ClaimOwner owner) {}
}
