package dev.lethe.server.http;

import dev.lethe.catalog.drop.AsyncPurgeHeader;
import dev.lethe.catalog.drop.DropPlanner;
import dev.lethe.catalog.drop.Drops;
import io.javalin.http.Context;

/**
 * The HTTP side of a table drop, the same on the Iceberg and the management DELETE
 * (docs/design/0052-one-drop-planner.md): the request's parameter and headers as received, and the
 * purge headers of the answer.
 */
public final class DropHeaders {
  /** The cleanup job a drop made. */
  public static final String PURGE_JOB = "X-Lethe-Purge-Job";
  /** That job's state when the drop answered. */
  public static final String PURGE_STATE = "X-Lethe-Purge-State";

  private DropHeaders() {}

  /** A drop request's parameters and headers, as received. */
  public static DropPlanner.Request request(Context ctx) {
    return new DropPlanner.Request(ctx.queryParam("purgeRequested"), ctx.header(AsyncPurgeHeader.LETHE),
        ctx.header(AsyncPurgeHeader.GRAVITINO));
  }

  /**
   * The cleanup job a drop made, if any (204 either way; docs/design/0051): a synchronous purge's
   * job and how it ended, or an asynchronous purge's job as written ({@code PENDING}).
   */
  public static void answer(Context ctx, Drops.Dropped dropped) {
    if (dropped.purge() != null) {
      ctx.header(PURGE_JOB, Long.toString(dropped.purge().job().jobId()));
      ctx.header(PURGE_STATE, dropped.purge().state().name());
    } else if (dropped.asyncJob() != null) {
      ctx.header(PURGE_JOB, Long.toString(dropped.asyncJob().jobId()));
      ctx.header(PURGE_STATE, dropped.asyncJob().state().name());
    }
  }
}
