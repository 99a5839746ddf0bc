package dev.lethe.server.iceberg;

import dev.lethe.catalog.iceberg.LetheCatalog;
import dev.lethe.catalog.purge.AsyncPurgeHeader;
import dev.lethe.catalog.purge.CleanupJob;
import dev.lethe.catalog.purge.DropPlanner;
import dev.lethe.catalog.purge.PurgeJobExecutor;
import dev.lethe.catalog.softdelete.SoftDeletePlanner;
import dev.lethe.catalog.softdelete.SoftDeletes;
import io.javalin.http.Context;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The one service behind every table {@code DELETE} (Iceberg REST and management routes;
 * docs/design/0052-one-drop-planner.md): it asks {@link DropPlanner} for the decision and
 * carries it out. A route only reads the request's parameters and headers, calls {@link #drop}, and
 * answers 204 (plus the purge headers of a synchronous purge); failures are exceptions its error
 * mapper turns into the route's error shape: {@link IllegalArgumentException} 400, {@link
 * NoSuchTableException} 404, {@link org.apache.iceberg.exceptions.AlreadyExistsException} 409.
 */
public final class TableDrops {
  private final AsyncDrops asyncDrops;
  private final SoftDeletes softDeletes;

  /**
   * @param asyncDrops the asynchronous purge, or null when this server has none
   * @param softDeletes the soft deletion, or null when this server has none (treated as off)
   */
  public TableDrops(AsyncDrops asyncDrops, SoftDeletes softDeletes) {
    this.asyncDrops = asyncDrops;
    this.softDeletes = softDeletes;
  }

  /** Whether soft deletion is on for this server: drops then write deletion records. */
  public boolean softDeletionOn() {
    return softDeletes != null && softDeletes.enabled();
  }

  /**
   * How a drop ended.
   *
   * @param decision the path taken
   * @param purge the synchronous purge's job and its state, null on the other paths
   * @param asyncJob the enqueued job of an asynchronous purge, null on the other paths
   */
  public record Dropped(DropPlanner.Decision decision, PurgeJobExecutor.Finished purge, CleanupJob asyncJob) {}

  /** The request's drop parameters, as received. */
  public static DropPlanner.Request request(Context ctx) {
    return new DropPlanner.Request(ctx.queryParam("purgeRequested"), ctx.header(AsyncPurgeHeader.LETHE),
        ctx.header(AsyncPurgeHeader.GRAVITINO));
  }

  /** The planner's decision for this catalog and table now. */
  public DropPlanner.Decision plan(LetheCatalog catalog, TableIdentifier id, DropPlanner.Request request) {
    DropPlanner.Settings settings = new DropPlanner.Settings(softDeletes != null && softDeletes.enabled(),
        catalog.row().properties().get(AsyncPurgeHeader.CATALOG_DEFAULT), asyncDrops != null);
    // a malformed request is refused before the entry is looked at (and even without a namespace)
    DropPlanner.Decision early = DropPlanner.plan(request, settings, DropPlanner.Entry.LIVE, id.toString());
    if (early instanceof DropPlanner.Invalid) {
      return early;
    }
    DropPlanner.Entry entry = catalog.tableExists(id) ? DropPlanner.Entry.LIVE : DropPlanner.Entry.ABSENT;
    return DropPlanner.plan(request, settings, entry, id.toString());
  }

  /**
   * Drops the table as the planner decides.
   *
   * @param principal the caller, recorded with a job or deletion record
   * @throws IllegalArgumentException on a malformed request (nothing changes)
   * @throws NoSuchTableException if there is no live table, also when a concurrent drop won
   */
  public Dropped drop(LetheCatalog catalog, TableIdentifier id, DropPlanner.Request request, String principal) {
    DropPlanner.Decision d = plan(catalog, id, request);
    if (d instanceof DropPlanner.Invalid invalid) {
      throw new IllegalArgumentException(invalid.message());
    }
    if (d instanceof DropPlanner.NotFound notFound) {
      throw new NoSuchTableException("%s", notFound.message());
    }
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
      return new Dropped(d, null, asyncDrops.dropTable(catalog.row(), id, principal));
    }
    return new Dropped(d, catalog.purgeTable(id, principal), null); // DropPlanner.SyncPurge
  }
}
