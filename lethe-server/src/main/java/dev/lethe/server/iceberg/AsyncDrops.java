package dev.lethe.server.iceberg;

import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.jobs.CleanupJob;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The asynchronous drop hooks of the Iceberg routes: drop the entry and enqueue its cleanup job in
 * one transaction (see {@code dev.lethe.catalog.jobs.CleanupJobEnqueuer}), then tell listeners and
 * wake the workers.
 */
public interface AsyncDrops {
  /**
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if no live table (nothing changes)
   */
  CleanupJob dropTable(CatalogRow catalog, TableIdentifier id, String principal);

  /**
   * @throws org.apache.iceberg.exceptions.NoSuchViewException if no such view (nothing changes)
   */
  CleanupJob dropView(CatalogRow catalog, TableIdentifier id, String principal);
}
