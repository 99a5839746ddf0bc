package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.entity.ViewRow;
import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.WriteConfinement;
import java.time.Clock;
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
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * View operations over the {@code lethe_view} row of one identifier, with the same compare-and-set
 * as tables. Before any metadata file is written the view's location and {@code
 * write.metadata.path} are checked against the catalog's allowed locations, and a registered
 * metadata file must lie inside them ({@link WriteConfinement}; 400, nothing written).
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
    refreshFromMetadataLocation(row.get().metadataLocation());
  }

  @Override
  protected void doCommit(ViewMetadata base, ViewMetadata metadata) {
    WriteConfinement.checkView(allowed, base, metadata);
    if (base == null && metadata.metadataFileLocation() != null) {
      WriteConfinement.checkViewMetadataFile(allowed, metadata.metadataFileLocation()); // a register
    }
    String newLocation = writeNewMetadataIfRequired(metadata);
    long now = clock.millis();
    if (base == null) {
      insert(newLocation, now);
      return;
    }
    String expected = base.metadataFileLocation();
    int swapped = jdbi.withHandle(h -> LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
        .map(ns -> new ViewDao(h).compareAndSetMetadataLocation(ns.namespaceId(), identifier.name(), expected, newLocation, now))
        .orElse(0));
    if (swapped != 1) {
      boolean exists = jdbi.withHandle(h -> LetheCatalog.findNamespace(h, catalogId, identifier.namespace())
          .flatMap(ns -> new ViewDao(h).find(ns.namespaceId(), identifier.name())).isPresent());
      if (!exists) {
        throw new NoSuchViewException("Cannot commit view %s: the view was dropped", identifier);
      }
      throw new CommitFailedException(
          "Cannot commit view %s: metadata location is no longer %s (another commit won)", identifier, expected);
    }
  }

  private void insert(String location, long now) {
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
        views.insert(new ViewRow(ids.get(), catalogId, ns.namespaceId(), identifier.name(), location, null, now, now));
      });
    } catch (UnableToExecuteStatementException e) {
      if (SqlErrors.isConstraintViolation(e)) {
        throw new AlreadyExistsException(e, "View already exists: %s", identifier);
      }
      throw e;
    }
  }
}
