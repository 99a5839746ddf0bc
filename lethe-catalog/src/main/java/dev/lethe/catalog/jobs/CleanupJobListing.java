package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.KeysetPage;

/**
 * The cleanup job listing the management route serves, newest first (docs/design/0403-keyset-catalog-listings.md):
 * the one query the HTTP edge asks of the job table, so no route reaches a DAO.
 */
public final class CleanupJobListing {
  private final CatalogDatabase database;

  /** Lists the jobs stored in {@code database}. */
  public CleanupJobListing(CatalogDatabase database) {
    this.database = database;
  }

  /**
   * One page of a catalog's jobs, by descending job id.
   *
   * @param catalogId the catalog's id
   * @param namespace the encoded namespace to keep, or null for all
   * @param objectName the table or view name to keep, or null for all
   * @param state the state to keep, or null for all
   * @param before the job id the page continues below, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<CleanupJob> page(String catalogId, String namespace, String objectName, CleanupJobState state,
      Long before, int size) {
    return database.jdbi().withHandle(h -> new CleanupJobDao(h).list(catalogId, namespace, objectName, state, before, size));
  }
}
