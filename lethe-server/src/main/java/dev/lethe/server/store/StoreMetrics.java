package dev.lethe.server.store;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Meters of the store's HTTP routes (docs/design/0433-observability.md): {@code
 * lethe.store.requests} by route template, method and outcome; {@code lethe.store.conflicts} (a
 * conditional write refused, 409 or 412) by route; {@code lethe.store.sync.batches} and {@code
 * lethe.store.sync.batch.items} for {@code POST /store/v1/raw/batch/{ns}}, the route a sync writes
 * through. Counted by this process.
 */
public final class StoreMetrics {
  private final MeterRegistry registry;
  private final Counter batches;
  private final DistributionSummary batchItems;

  /** Registers the batch meters; the per-route ones register on first use. */
  public StoreMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.batches = Counter.builder("lethe.store.sync.batches")
        .description("Raw write batches (POST /store/v1/raw/batch/{ns}, what a sync pushes) this process answered")
        .register(registry);
    this.batchItems = DistributionSummary.builder("lethe.store.sync.batch.items")
        .description("Records per raw write batch this process answered").register(registry);
  }

  /**
   * Counts one answered store request.
   *
   * @param route the route template, e.g. {@code /store/v1/records/{ns}/{col}/{id}}; {@code unmatched} when none matched
   * @param method the HTTP method
   * @param status the status answered
   */
  public void request(String route, String method, int status) {
    Counter.builder("lethe.store.requests")
        .description("Store requests this process answered, by route template, method and outcome "
            + "(ok, conflict, not_found, refused, client_error, server_error)")
        .tags("route", route, "method", method, "outcome", outcome(status)).register(registry).increment();
    if (status == 409 || status == 412) {
      Counter.builder("lethe.store.conflicts")
          .description("Conditional store writes refused because the record changed (409 or 412), by route")
          .tag("route", route).register(registry).increment();
    }
  }

  /** Counts one raw write batch of {@code items} records. */
  public void batch(int items) {
    batches.increment();
    batchItems.record(items);
  }

  /** The outcome tag of a status. */
  static String outcome(int status) {
    if (status == 409 || status == 412) {
      return "conflict";
    }
    if (status == 404) {
      return "not_found";
    }
    if (status == 401 || status == 403) {
      return "refused";
    }
    if (status >= 500) {
      return "server_error";
    }
    return status >= 400 ? "client_error" : "ok";
  }
}
