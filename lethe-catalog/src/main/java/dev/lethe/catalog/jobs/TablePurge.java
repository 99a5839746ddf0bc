package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogRow;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Drops a table and purges its files before returning: what a catalog's {@code dropTable(id, true)}
 * calls: {@link SynchronousPurge} on the process's {@link PurgeJobExecutor}.
 */
@FunctionalInterface
public interface TablePurge {
  /**
   * @return how the purge job ended (see {@link SynchronousPurge#purgeTable})
   * @throws org.apache.iceberg.exceptions.NoSuchTableException if there is no live table
   */
  PurgeJobExecutor.Finished purgeTable(CatalogRow catalog, TableIdentifier id, String createdBy);
}
