package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.entity.ViewDao;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.io.UnreadableMetadataException;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupReceipts;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupJobStateException;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.jobs.NameReuseGuard;
import dev.lethe.catalog.jobs.NoSuchCleanupJobException;
import dev.lethe.catalog.jobs.OperatorEvent;
import dev.lethe.catalog.jobs.OperatorEvents;
import dev.lethe.catalog.jobs.PurgeEventListener;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator ends a cleanup job by hand (docs/design/0443-abandon-and-rescue.md): {@link #abandon}
 * a {@code FAILED} job whose leftovers were removed by hand ({@code ABANDONED}), {@link #rescue} a
 * {@code PENDING} or {@code FAILED} job by putting its table back ({@code CANCELLED}). Each is one
 * guarded {@code UPDATE} of the job row in one transaction with everything it implies; a refusal
 * rolls it back; a committed one is told to the listener as an {@link OperatorEvent}
 * (docs/design/0447-operator-events.md). Beside {@code jobs.JobControl} (retry, run-now), here because
 * both touch the soft deletion's records.
 */
public final class JobEndings {
  private static final Logger LOG = LoggerFactory.getLogger(JobEndings.class);

  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final FileIOFactory fileIOFactory;
  private final Supplier<String> ids;
  private final PurgeEventListener listener;

  /**
   * @param database the catalog database holding the jobs
   * @param fileIOFactory builds the catalog's FileIO for the rescue's file check
   * @param ids source of new table ids (UUID strings) for a rescued table
   * @param listener told of each abandon and rescue, after its commit
   */
  public JobEndings(CatalogDatabase database, FileIOFactory fileIOFactory, Supplier<String> ids,
      PurgeEventListener listener) {
    this.database = Objects.requireNonNull(database, "database");
    this.clock = DatabaseClock.of(database.vendor());
    this.fileIOFactory = Objects.requireNonNull(fileIOFactory, "fileIOFactory");
    this.ids = Objects.requireNonNull(ids, "ids");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Checks an operator's reason: {@code required} and blank is refused, so is one longer than {@link
   * CleanupJob#MAX_END_REASON} characters.
   *
   * @return the reason trimmed, or null when not required and absent or blank
   * @throws IllegalArgumentException naming what is wrong (400)
   */
  public static String reason(String reason, boolean required) {
    String trimmed = reason == null ? "" : reason.strip();
    if (trimmed.isEmpty()) {
      if (required) {
        throw new IllegalArgumentException("Invalid reason: a reason is required (what was done about the files, "
            + "at most " + CleanupJob.MAX_END_REASON + " characters)");
      }
      return null;
    }
    if (trimmed.length() > CleanupJob.MAX_END_REASON) {
      throw new IllegalArgumentException("Invalid reason: " + trimmed.length() + " characters, at most "
          + CleanupJob.MAX_END_REASON);
    }
    return trimmed;
  }

  /**
   * Ends a {@code FAILED} job {@code ABANDONED}, keeping who, when (database clock) and why. If the
   * job purges a soft-deleted table, that deletion record and the retained table row are removed in
   * the same transaction: no longer listed as restorable, and the name is free.
   *
   * @param catalog the catalog (a job of another catalog is unknown here)
   * @param endedBy the admin principal's name
   * @param reason the operator's reason, checked by {@link #reason(String, boolean)}
   * @return the job as it now is
   * @throws IllegalArgumentException the reason is missing, blank or too long (400); nothing changed
   * @throws NoSuchCleanupJobException no such job in that catalog (404)
   * @throws CleanupJobStateException the job is not {@code FAILED} (409, naming its state); nothing changed
   */
  public CleanupJob abandon(CatalogRow catalog, long jobId, String endedBy, String reason) {
    String why = reason(reason, true);
    CleanupJob job = database.jdbi().inTransaction(h -> {
      CleanupJobDao dao = new CleanupJobDao(h);
      long at = clock.millis(h);
      boolean changed = dao.abandonFailed(catalog.catalogId(), jobId, endedBy, why, at);
      CleanupJob now = find(dao, catalog, jobId);
      if (!changed) {
        throw new CleanupJobStateException("abandon", now, "only a FAILED job can be abandoned");
      }
      // every ended job leaves a receipt, in the transaction of its end (docs/design/0445-job-progress-and-receipts.md)
      CleanupReceipts.write(h, jobId, at);
      // the job's locations are free from now on (docs/design/0446-a-failed-job-keeps-its-locations.md)
      LocationClaims.release(h, ClaimOwner.job(jobId));
      // a retained table's record still holds its name
      new DeletionDao(h).findByPurgeJobForUpdate(jobId).ifPresent(record -> {
        new TableDao(h).deleteRetained(record.entityId(), record.deletionId());
        LocationClaims.release(h, ClaimOwner.table(record.entityId()));
        if (!new DeletionDao(h).deletePurged(record.deletionId(), jobId)) {
          throw new IllegalStateException("Cannot abandon cleanup job " + jobId + ": its locked deletion record changed");
        }
      });
      return now;
    });
    LOG.info("Cleanup job {} ({}) abandoned by {}: {}", jobId, qualified(job), endedBy, why);
    OperatorEvents.deliver(listener, new OperatorEvent.JobAbandoned(job, endedBy, job.endedAt(), why));
    return job;
  }

  /**
   * Cancels a {@code PENDING} or {@code FAILED} table job and puts its table back at its name, from
   * the job's metadata file, in one transaction. Every file the metadata reaches (metadata file,
   * every snapshot's manifest list, manifests, data and delete files) is checked to exist first,
   * outside the transaction; the transaction cancels the job only if it is still exactly as it was
   * when checked, so a worker that claimed it meanwhile (or that claims it after) wins or loses
   * cleanly. The table owns the job's location claims again.
   *
   * @param catalog the catalog (a job of another catalog is unknown here)
   * @param endedBy the admin principal's name
   * @param reason the operator's reason or null, checked by {@link #reason(String, boolean)}
   * @return the job as it now is ({@code CANCELLED})
   * @throws IllegalArgumentException the reason is too long (400); nothing changed
   * @throws NoSuchCleanupJobException no such job in that catalog (404)
   * @throws CleanupJobStateException the job is not {@code PENDING} or {@code FAILED}, or changed
   *     since it was checked (409, naming its state); nothing changed
   * @throws JobRescueRefusedException a file is gone, the namespace is gone, or the job purges a view
   *     (409); nothing changed
   * @throws AlreadyExistsException a table or view holds the name, or another entry or job overlaps
   *     the location (409); nothing changed
   * @throws UnreadableMetadataException the metadata file exists but cannot be parsed (500)
   */
  public CleanupJob rescue(CatalogRow catalog, long jobId, String endedBy, String reason) {
    String why = reason(reason, false);
    CleanupJob seen = database.jdbi().withHandle(h -> find(new CleanupJobDao(h), catalog, jobId));
    if (seen.state() != CleanupJobState.PENDING && seen.state() != CleanupJobState.FAILED) {
      throw new CleanupJobStateException("rescue", seen, "only a PENDING or FAILED job can be rescued");
    }
    TableIdentifier id = identifier(seen);
    if (seen.objectType() != CleanupObjectType.TABLE) {
      throw new JobRescueRefusedException("Cannot rescue cleanup job " + jobId + ": it purges view " + id
          + "; only a table's job can be rescued");
    }
    // no file I/O under row locks (as undrop, docs/design/0301-hollow-restore.md)
    try (FileIO io = fileIOFactory.create(catalog.warehouse(), catalog.properties())) {
      missingFile(seen.metadataLocation(), io, id).ifPresent(missing -> {
        throw new JobRescueRefusedException("Cannot rescue cleanup job " + jobId + " (table " + id + "): " + missing
            + "; abandon the job instead once the leftovers are removed");
      });
    }
    CleanupJob job = database.jdbi().inTransaction(h -> rescueOnce(h, catalog, seen, id, endedBy, why));
    LOG.info("Cleanup job {} cancelled by {}'s rescue: table {} is back{}", jobId, endedBy, qualified(job),
        why == null ? "" : ": " + why);
    OperatorEvents.deliver(listener, new OperatorEvent.JobRescued(job, endedBy, job.endedAt(), why));
    return job;
  }

  private CleanupJob rescueOnce(Handle h, CatalogRow catalog, CleanupJob seen, TableIdentifier id, String endedBy,
      String why) {
    long now = clock.millis(h);
    CleanupJobDao dao = new CleanupJobDao(h);
    long jobId = seen.jobId();
    boolean changed = dao.cancelUnchanged(seen, endedBy, why, now);
    CleanupJob job = find(dao, catalog, jobId);
    if (!changed) {
      throw new CleanupJobStateException("rescue", job,
          "only a PENDING or FAILED job no worker has claimed since the rescue checked its files can be rescued");
    }
    CleanupReceipts.write(h, jobId, now);
    String refusal = "Cannot rescue cleanup job " + jobId + " (table " + id + ")";
    Optional<DeletionRecord> record = new DeletionDao(h).findByPurgeJobForUpdate(jobId);
    TableDao tables = new TableDao(h);
    String tableId;
    if (record.isPresent()) {
      // a soft-deleted table: its retained row still holds the name; it becomes live again
      DeletionRecord r = record.get();
      tableId = r.entityId();
      if (tables.clearDeletionId(tableId, r.deletionId()) != 1 || !new DeletionDao(h).deletePurged(r.deletionId(), jobId)) {
        throw new IllegalStateException(refusal + ": its locked deletion record changed");
      }
    } else {
      NamespaceRow ns = new NamespaceDao(h).findForUpdate(catalog.catalogId(), seen.namespace())
          .orElseThrow(() -> new JobRescueRefusedException(refusal + ": namespace does not exist: " + id.namespace()));
      if (new ViewDao(h).find(ns.namespaceId(), id.name()).isPresent()) {
        throw new AlreadyExistsException("%s: view with same name already exists: %s", refusal, id);
      }
      if (tables.find(ns.namespaceId(), id.name()).isPresent()) {
        throw new AlreadyExistsException("%s: table already exists: %s", refusal, id);
      }
      RetainedNameGuard.checkName(h, ns.namespaceId(), id);
      NameReuseGuard.check(h, catalog.catalogId(), ns.name(), id);
      tableId = ids.get();
      tables.insert(new TableRow(tableId, catalog.catalogId(), ns.namespaceId(), id.name(), seen.metadataLocation(),
          null, 0, null, now, now));
    }
    // the table owns the job's locations again (a PENDING or FAILED job holds them; a job that failed before
    // docs/design/0446-a-failed-job-keeps-its-locations.md holds none, and the table claims its assumed root)
    LocationClaims.transfer(h, catalog.catalogId(), ClaimOwner.job(jobId), ClaimOwner.table(tableId),
        () -> TableRoots.assumedFromMetadataFile(seen.metadataLocation()), now, refusal);
    return job;
  }

  /**
   * The first file the metadata reaches that is gone, described; empty when every one exists. First
   * undrop's rule ({@link ReadableFiles#check}), then every snapshot's manifest list, manifests, data
   * and delete files: a purge deletes data files first, so an attempt that failed may have removed
   * some while the metadata is intact.
   */
  private static Optional<String> missingFile(String metadataLocation, FileIO io, TableIdentifier id) {
    ReadableFiles.Verdict verdict = ReadableFiles.check(metadataLocation, ReadableFiles.probe(io));
    if (verdict instanceof ReadableFiles.Hollow hollow) {
      return Optional.of(hollow.detail());
    }
    if (verdict instanceof ReadableFiles.Unreadable u) {
      throw new UnreadableMetadataException("table", id.toString(), u.location(), u.cause());
    }
    TableMetadata metadata = TableMetadataParser.read(io, metadataLocation);
    java.util.Map<String, ManifestFile> manifests = new java.util.LinkedHashMap<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      if (snapshot.manifestListLocation() != null && !io.newInputFile(snapshot.manifestListLocation()).exists()) {
        return Optional.of("the manifest list of snapshot " + snapshot.snapshotId() + " " + snapshot.manifestListLocation()
            + " is missing");
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        if (manifests.putIfAbsent(manifest.path(), manifest) == null && !io.newInputFile(manifest.path()).exists()) {
          return Optional.of("manifest " + manifest.path() + " of snapshot " + snapshot.snapshotId() + " is missing");
        }
      }
    }
    Set<String> seenFiles = new LinkedHashSet<>();
    for (ManifestFile manifest : manifests.values()) {
      try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, io, metadata.specsById())) {
        for (String path : paths) {
          if (seenFiles.add(path) && !io.newInputFile(path).exists()) {
            return Optional.of("data or delete file " + path + " is missing");
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return Optional.empty();
  }

  private static CleanupJob find(CleanupJobDao dao, CatalogRow catalog, long jobId) {
    return dao.find(jobId).filter(j -> j.catalogId().equals(catalog.catalogId()))
        .orElseThrow(() -> new NoSuchCleanupJobException(catalog.name(), jobId));
  }

  private static TableIdentifier identifier(CleanupJob job) {
    return TableIdentifier.of(NamespaceNames.decode(job.namespace()), job.objectName());
  }

  private static String qualified(CleanupJob job) {
    return job.catalogName() + "." + identifier(job);
  }
}
