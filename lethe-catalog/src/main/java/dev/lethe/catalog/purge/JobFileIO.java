package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDao;
import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.MetalakeDao;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.PurgeOutcome;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;

/**
 * The FileIO a cleanup job deletes through: built from the catalog's current properties if the
 * catalog still exists, else from the encrypted properties captured at drop. Shared by the table
 * and the view handler.
 */
final class JobFileIO {
  private final CatalogDatabase database;
  private final CredentialCipher cipher;
  private final FileIOFactory fileIOFactory;

  JobFileIO(CatalogDatabase database, CredentialCipher cipher, FileIOFactory fileIOFactory) {
    this.database = database;
    this.cipher = cipher;
    this.fileIOFactory = fileIOFactory;
  }

  /**
   * Runs {@code body} with the job's FileIO and closes it.
   *
   * @return what {@code body} answers, or a terminal outcome when the FileIO cannot be rebuilt at
   *     all, or a transient one when building it fails
   */
  PurgeOutcome withFileIO(CleanupJob job, Function<FileIO, PurgeOutcome> body) {
    FileIO io;
    try {
      Optional<FileIO> built = fileIO(job);
      if (built.isEmpty()) {
        return new PurgeOutcome.Terminal("cannot rebuild the FileIO: catalog " + job.catalogName()
            + " no longer exists and the stored FileIO properties cannot be decrypted with this server's key");
      }
      io = built.get();
    } catch (RuntimeException e) {
      return new PurgeOutcome.Transient("cannot create FileIO " + job.fileIoImpl() + ": " + oneLine(e));
    }
    try {
      return body.apply(io);
    } finally {
      io.close();
    }
  }

  private Optional<FileIO> fileIO(CleanupJob job) {
    Optional<CatalogRow> catalog = database.background().withHandle(h -> new MetalakeDao(h).findByName(job.metalakeName())
        .flatMap(lake -> new CatalogDao(h).findByName(lake.metalakeId(), job.catalogName()))
        .filter(row -> row.catalogId().equals(job.catalogId())));
    if (catalog.isPresent()) {
      return Optional.of(fileIOFactory.create(catalog.get().warehouse(), catalog.get().properties()));
    }
    Optional<Map<String, String>> props = cipher.decrypt(job.encryptedFileIoProperties());
    return props.map(p -> CatalogUtil.loadFileIO(job.fileIoImpl(), p, null));
  }

  /** An exception's class and message on one line, for a job's {@code last_error}. */
  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    return m.replace('\n', ' ');
  }
}
