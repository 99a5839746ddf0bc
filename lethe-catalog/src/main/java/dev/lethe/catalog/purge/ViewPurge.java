package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.JobHandler;
import dev.lethe.catalog.jobs.Lease;
import dev.lethe.catalog.jobs.PurgeOutcome;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handler of a view's cleanup job: its earlier metadata files, then the current one, then the
 * directories that emptied; nothing of the view is left in the directories it wrote into
 * (docs/design/0005-a-purged-view-leaves-nothing.md). {@link PurgeJobRunner} hands it the view jobs.
 */
public final class ViewPurge implements JobHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ViewPurge.class);

  private final CatalogDatabase database;
  private final JobFileIO fileIOs;
  private final LongConsumer filesDeleted;

  ViewPurge(CatalogDatabase database, JobFileIO fileIOs, LongConsumer filesDeleted) {
    this.database = database;
    this.fileIOs = fileIOs;
    this.filesDeleted = filesDeleted;
  }

  /** Runs the view job while {@code lease} holds; never throws for storage failures. */
  @Override
  public PurgeOutcome run(CleanupJob job, Lease lease) {
    return fileIOs.withFileIO(job, io -> purge(job, io, lease));
  }

  /**
   * A view purge: its earlier metadata files, then the current one, then the directories that
   * emptied; nothing of the view is left in the directories it wrote into
   * (docs/design/0005-a-purged-view-leaves-nothing.md).
   */
  private PurgeOutcome purge(CleanupJob job, FileIO io, Lease lease) {
    if (lease.lost()) {
      return new PurgeOutcome.LeaseLost();
    }
    long deleted = 0;
    Optional<LocationPath> currentFile = LocationPath.tryParse(job.metadataLocation());
    ViewMetadata current = null;
    if (currentFile.isPresent()) {
      try {
        current = ViewMetadataParser.read(io.newInputFile(job.metadataLocation()));
      } catch (NotFoundException e) {
        // the current file goes last: an earlier run deleted everything else before it
        return new PurgeOutcome.Completed(0);
      } catch (RuntimeException e) {
        if (e.getCause() instanceof java.io.FileNotFoundException) {
          return new PurgeOutcome.Completed(0);
        }
        LOG.warn("Cleanup job {}: cannot read view metadata {} ({}); only that file is deleted", job.jobId(),
            job.metadataLocation(), JobFileIO.oneLine(e));
      }
    }
    if (current != null) {
      List<LocationPath> dirs = ViewVersions.directories(current, currentFile.get());
      List<String> older;
      try {
        List<LocationPath> others = database.background().withHandle(h -> {
          List<LocationPath> all = new ArrayList<>();
          for (LocationPath d : dirs) {
            all.addAll(LocationClaims.claimedInside(h, d, ClaimOwner.job(job.jobId())));
          }
          return all;
        });
        older = ViewVersions.older(io, current, currentFile.get(), dirs, others);
      } catch (RuntimeException e) {
        return new PurgeOutcome.Transient("cannot list the metadata files of view " + job.metadataLocation() + ": "
            + JobFileIO.oneLine(e));
      }
      if (lease.lost()) {
        return new PurgeOutcome.LeaseLost();
      }
      BatchOutcome earlier = FileBatchDeleter.delete(io, PurgePhase.PREVIOUS_METADATA_FILES, older);
      filesDeleted.accept(earlier.deleted());
      deleted += earlier.deleted();
      if (earlier.failed() > 0) {
        return new PurgeOutcome.Transient(earlier.failed() + " earlier metadata files of view " + job.metadataLocation()
            + " could not be deleted");
      }
    }
    BatchOutcome outcome = FileBatchDeleter.delete(io, PurgePhase.CURRENT_METADATA_FILE, List.of(job.metadataLocation()));
    filesDeleted.accept(outcome.deleted());
    if (outcome.failed() > 0) {
      return new PurgeOutcome.Transient("cannot delete view metadata file " + job.metadataLocation());
    }
    if (current != null) {
      LocationPath file = currentFile.get();
      // the emptied metadata directory, and the view's location when that empties too; never above it
      LocationPath.tryParse(current.location()).filter(l -> l.contains(file))
          .or(file::parent)
          .ifPresent(root -> LocationSweep.removeEmptyParents(file, PurgeScope.of(List.of(root), List.of())));
    }
    return new PurgeOutcome.Completed(deleted + outcome.deleted());
  }

}
