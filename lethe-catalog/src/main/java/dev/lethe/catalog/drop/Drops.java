package dev.lethe.catalog.drop;

import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.softdelete.SoftDeletePlanner;
import dev.lethe.catalog.softdelete.SoftDeletes;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;

/**
 * The one service behind every table and view {@code DELETE} (Iceberg REST and management routes;
 * docs/design/0052-one-drop-planner.md, docs/design/0210-catalog-drop-and-jobs-layout.md): it asks
 * {@link DropPlanner} once per request and carries the decision out. A caller only reads the
 * request's parameters and headers into a {@link DropPlanner.Request}, calls {@link #drop} or
 * {@link #dropView}, and answers; failures are exceptions: {@link IllegalArgumentException} for a
 * malformed request, {@link NoSuchTableException} / {@link NoSuchViewException} when there is no
 * live entry, {@link org.apache.iceberg.exceptions.AlreadyExistsException} when a purge would
 * delete another entry's files. Nothing changes on any of them. Thread-safe.
 */
public final class Drops {
  private final AsyncPurgeService asyncPurge;
  private final SoftDeletes softDeletes;

  /**
   * @param asyncPurge the asynchronous purge, or null when this server has none (an async request
   *     is then refused)
   * @param softDeletes the soft deletion, or null when this server has none (treated as off)
   */
  public Drops(AsyncPurgeService asyncPurge, SoftDeletes softDeletes) {
    this.asyncPurge = asyncPurge;
    this.softDeletes = softDeletes;
  }

  /**
   * How a drop ended.
   *
   * @param decision the path taken
   * @param purge the synchronous purge's job and its state, null on the other paths
   * @param asyncJob the enqueued job of an asynchronous purge, null on the other paths
   */
  public record Dropped(DropPlanner.Decision decision, PurgeJobExecutor.Finished purge, CleanupJob asyncJob) {}

  /** Whether soft deletion is on for this server: table drops then write deletion records. */
  public boolean softDeletionOn() {
    return softDeletes != null && softDeletes.enabled();
  }

  /**
   * Drops the table as the planner decides.
   *
   * @param principal the caller, recorded with a job or deletion record
   * @throws IllegalArgumentException on a malformed request (nothing changes)
   * @throws NoSuchTableException if there is no live table, also when a concurrent drop won
   */
  public Dropped drop(LetheCatalog catalog, TableIdentifier id, DropPlanner.Request request, String principal) {
    DropPlanner.Decision d = DropPlanner.plan(DropPlanner.Kind.TABLE, request, settings(catalog), () -> catalog.tableExists(id)
        ? DropPlanner.Entry.LIVE : DropPlanner.Entry.ABSENT, id.toString());
    refused(d);
    if (d instanceof DropPlanner.SoftDrop soft) {
      if (!(softDeletes.drop(catalog.row(), id, principal, soft.purgeRequested()) instanceof SoftDeletePlanner.CreateRecord)) {
        throw new NoSuchTableException("Table does not exist: %s", id);
      }
      return new Dropped(d, null, null);
    }
    if (d instanceof DropPlanner.MetadataOnly) {
      if (!catalog.dropTable(id, false)) {
        throw new NoSuchTableException("Table does not exist: %s", id);
      }
      return new Dropped(d, null, null);
    }
    if (d instanceof DropPlanner.AsyncPurge) {
      return new Dropped(d, null, asyncPurge.dropTable(catalog.row(), id, principal));
    }
    return new Dropped(d, catalog.purgeTable(id, principal), null); // DropPlanner.SyncPurge
  }

  /**
   * Drops the view as the planner decides: its entry only, or with an async header also its
   * metadata files through a cleanup job.
   *
   * @param id reads the view's name; called after the request's headers are checked, so a
   *     malformed header is refused first
   * @param principal the caller, recorded with a job
   * @throws IllegalArgumentException on a malformed request or name (nothing changes)
   * @throws NoSuchViewException if there is no such view, also when a concurrent drop won
   */
  public Dropped dropView(LetheCatalog catalog, Supplier<TableIdentifier> id, DropPlanner.Request request,
      String principal) {
    TableIdentifier[] view = new TableIdentifier[1];
    DropPlanner.Decision d = DropPlanner.plan(DropPlanner.Kind.VIEW, request, settings(catalog), () -> {
      view[0] = id.get();
      return catalog.viewExists(view[0]) ? DropPlanner.Entry.LIVE : DropPlanner.Entry.ABSENT;
    }, null);
    if (d instanceof DropPlanner.NotFound) {
      throw new NoSuchViewException("View does not exist: %s", view[0]);
    }
    refused(d);
    if (d instanceof DropPlanner.AsyncPurge) {
      return new Dropped(d, null, asyncPurge.dropView(catalog.row(), view[0], principal));
    }
    if (!catalog.dropView(view[0])) { // DropPlanner.MetadataOnly
      throw new NoSuchViewException("View does not exist: %s", view[0]);
    }
    return new Dropped(d, null, null);
  }

  private DropPlanner.Settings settings(LetheCatalog catalog) {
    return new DropPlanner.Settings(softDeletionOn(), catalog.row().properties().get(AsyncPurgeHeader.CATALOG_DEFAULT),
        asyncPurge != null);
  }

  private static void refused(DropPlanner.Decision d) {
    if (d instanceof DropPlanner.Invalid invalid) {
      throw new IllegalArgumentException(invalid.message());
    }
    if (d instanceof DropPlanner.NotFound notFound) {
      throw new NoSuchTableException("%s", notFound.message());
    }
  }
}
