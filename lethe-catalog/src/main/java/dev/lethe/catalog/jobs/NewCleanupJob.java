package dev.lethe.catalog.jobs;

import java.util.Objects;

/**
 * What {@link CleanupJobDao#insert} stores for a freshly dropped object: a {@code PENDING} job with
 * no attempts.
 *
 * @param objectType table or view, not null
 * @param metalakeName not null
 * @param catalogId not null
 * @param catalogName not null
 * @param namespace levels joined by U+001F, not null
 * @param objectName not null
 * @param metadataLocation not null
 * @param fileIoImpl not null
 * @param encryptedFileIoProperties not null
 * @param createdBy principal, not null ("anonymous" when auth is off)
 */
public record NewCleanupJob(
    CleanupObjectType objectType,
    String metalakeName,
    String catalogId,
    String catalogName,
    String namespace,
    String objectName,
    String metadataLocation,
    String fileIoImpl,
    String encryptedFileIoProperties,
    String createdBy) {
  /** Rejects nulls. */
  public NewCleanupJob {
    Objects.requireNonNull(objectType, "objectType");
    Objects.requireNonNull(metalakeName, "metalakeName");
    Objects.requireNonNull(catalogId, "catalogId");
    Objects.requireNonNull(catalogName, "catalogName");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(objectName, "objectName");
    Objects.requireNonNull(metadataLocation, "metadataLocation");
    Objects.requireNonNull(fileIoImpl, "fileIoImpl");
    Objects.requireNonNull(encryptedFileIoProperties, "encryptedFileIoProperties");
    Objects.requireNonNull(createdBy, "createdBy");
  }

  @Override
  public String toString() {
    return "NewCleanupJob[" + objectType + " " + catalogName + "." + namespace.replace('\u001f', '.') + "." + objectName + "]";
  }
}
