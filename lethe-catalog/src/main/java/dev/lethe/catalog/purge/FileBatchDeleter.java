package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.PurgePhase;
import java.util.List;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes one batch of files through a {@link FileIO}: one bulk call when the FileIO implements
 * {@link SupportsBulkOperations} (S3 {@code DeleteObjects}, {@code LocalFileIO}), otherwise one
 * {@code deleteFile} call per path on the calling thread.
 *
 * <p>Best effort, like Iceberg's {@code CatalogUtil.deleteFiles}: failures are logged and counted,
 * never thrown, so one bad file does not stop the rest of a purge. A file that does not exist
 * counts as deleted. Thread-safe (stateless); the asynchronous purge calls it from its delete
 * pool.
 */
public final class FileBatchDeleter {
  private static final Logger LOG = LoggerFactory.getLogger(FileBatchDeleter.class);

  private FileBatchDeleter() {}

  /**
   * Deletes {@code paths}.
   *
   * @param io the FileIO of the table, not null
   * @param phase the phase the batch belongs to, used in log lines only, not null
   * @param paths locations to delete, not null; empty is a no-op
   * @return how many files are gone and how many could not be deleted; the two add up to {@code
   *     paths.size()}
   */
  public static BatchOutcome delete(FileIO io, PurgePhase phase, List<String> paths) {
    return delete(io, phase.toString(), paths);
  }

  /**
   * Deletes {@code paths}.
   *
   * @param io the FileIO of the table, not null
   * @param phase what the files are, used in log lines only (for example "SWEEP"), not null
   * @param paths locations to delete, not null; empty is a no-op
   * @return how many files are gone and how many could not be deleted
   */
  public static BatchOutcome delete(FileIO io, String phase, List<String> paths) {
    if (paths.isEmpty()) {
      return new BatchOutcome(0, 0);
    }
    if (io instanceof SupportsBulkOperations bulk) {
      try {
        bulk.deleteFiles(paths);
        return new BatchOutcome(paths.size(), 0);
      } catch (BulkDeletionFailureException e) {
        int failed = Math.min(Math.max(e.numberFailedObjects(), 0), paths.size());
        LOG.warn("Failed to delete {} of {} {} files", failed, paths.size(), phase, e);
        return new BatchOutcome(paths.size() - failed, failed);
      } catch (RuntimeException e) {
        LOG.warn("Failed to bulk delete {} {} files", paths.size(), phase, e);
        return new BatchOutcome(0, paths.size());
      }
    }
    int deleted = 0;
    int failed = 0;
    for (String path : paths) {
      try {
        io.deleteFile(path);
        deleted++;
      } catch (NotFoundException e) {
        // already gone: for a purge that is the goal, e.g. on a retry after a partial purge
        deleted++;
      } catch (RuntimeException e) {
        failed++;
        LOG.warn("Failed to delete {} file {}", phase, path, e);
      }
    }
    return new BatchOutcome(deleted, failed);
  }
}
