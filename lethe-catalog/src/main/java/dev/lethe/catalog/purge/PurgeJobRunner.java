package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDao;
import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.MetalakeDao;
import dev.lethe.catalog.io.FileIOFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed cleanup job on a worker thread (async design §5.5 steps 2–3, §5.6) and says how
 * it ended; it never writes the job row.
 *
 * <p>It rebuilds the FileIO (from the catalog's current properties if the catalog still exists,
 * else from the encrypted properties captured at drop), re-reads the metadata file, plans with
 * {@link PurgePlanner} (the set of the synchronous purge, {@code gc.enabled=false} honoured) and
 * streams each phase's batches into the shared {@link DeletePool}, finishing a phase before the
 * next so the current metadata file goes last. It checks the lease before every batch and stops at
 * once when it is lost. A phase with undeleted files stops the run before the metadata files go,
 * so a retry can still walk the table.
 */
public final class PurgeJobRunner {
  private static final Logger LOG = LoggerFactory.getLogger(PurgeJobRunner.class);

  private final CatalogDatabase database;
  private final CredentialCipher cipher;
  private final FileIOFactory fileIOFactory;
  private final DeletePool deletePool;
  private final PurgePlanner planner;
  private final LongConsumer filesDeleted;

  /**
   * @param database the catalog database (to re-read the catalog's FileIO properties)
   * @param cipher decrypts the captured FileIO properties
   * @param fileIOFactory builds the FileIO of a catalog
   * @param deletePool the shared delete pool
   * @param deleteBatchSize files per delete call
   * @param filesDeleted told the number of files gone after each batch (metrics)
   */
  public PurgeJobRunner(CatalogDatabase database, CredentialCipher cipher, FileIOFactory fileIOFactory,
      DeletePool deletePool, int deleteBatchSize, LongConsumer filesDeleted) {
    this.database = database;
    this.cipher = cipher;
    this.fileIOFactory = fileIOFactory;
    this.deletePool = deletePool;
    // a retry (or a reclaim after a crash) may find manifest lists already deleted
    this.planner = new PurgePlanner(deleteBatchSize, PurgePlanner.DEFAULT_DEDUPE_WINDOW, true);
    this.filesDeleted = filesDeleted;
  }

  /** Runs the job while {@code lease} holds; never throws for storage failures. */
  public PurgeOutcome run(CleanupJob job, Lease lease) {
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
      return job.objectType() == CleanupObjectType.VIEW ? runView(job, io, lease) : runTable(job, io, lease);
    } finally {
      io.close();
    }
  }

  private Optional<FileIO> fileIO(CleanupJob job) {
    Optional<CatalogRow> catalog = database.jdbi().withHandle(h -> new MetalakeDao(h).findByName(job.metalakeName())
        .flatMap(lake -> new CatalogDao(h).findByName(lake.metalakeId(), job.catalogName()))
        .filter(row -> row.catalogId().equals(job.catalogId())));
    if (catalog.isPresent()) {
      return Optional.of(fileIOFactory.create(catalog.get().warehouse(), catalog.get().properties()));
    }
    Optional<Map<String, String>> props = cipher.decrypt(job.encryptedFileIoProperties());
    return props.map(p -> CatalogUtil.loadFileIO(job.fileIoImpl(), p, null));
  }

  private PurgeOutcome runView(CleanupJob job, FileIO io, Lease lease) {
    if (lease.lost()) {
      return new PurgeOutcome.LeaseLost();
    }
    BatchOutcome outcome = FileBatchDeleter.delete(io, PurgePhase.CURRENT_METADATA_FILE, List.of(job.metadataLocation()));
    filesDeleted.accept(outcome.deleted());
    return outcome.failed() == 0
        ? new PurgeOutcome.Completed(outcome.deleted())
        : new PurgeOutcome.Transient("cannot delete view metadata file " + job.metadataLocation());
  }

  private PurgeOutcome runTable(CleanupJob job, FileIO io, Lease lease) {
    String json;
    try (InputStream in = io.newInputFile(job.metadataLocation()).newStream()) {
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (NotFoundException e) {
      return missingMetadata(job, io);
    } catch (IOException | RuntimeException e) {
      if (e.getCause() instanceof java.io.FileNotFoundException || e instanceof java.io.FileNotFoundException) {
        return missingMetadata(job, io);
      }
      return new PurgeOutcome.Transient("cannot read metadata file " + job.metadataLocation() + ": " + oneLine(e));
    }
    TableMetadata metadata;
    try {
      metadata = TableMetadataParser.fromJson(job.metadataLocation(), json);
    } catch (RuntimeException e) {
      return new PurgeOutcome.Terminal("cannot parse metadata file " + job.metadataLocation() + ": " + oneLine(e));
    }
    PurgePlan plan;
    try {
      plan = planner.plan(io, metadata);
    } catch (RuntimeException e) {
      return new PurgeOutcome.Transient("cannot read the manifest lists of " + job.metadataLocation() + ": " + oneLine(e));
    }
    if (!plan.missingManifestLists().isEmpty()) {
      LOG.info("Cleanup job {}: {} manifest lists already gone (earlier attempt)", job.jobId(), plan.missingManifestLists().size());
    }
    long deleted = 0;
    for (PurgePhase phase : plan.phases()) {
      AtomicInteger unreadable = new AtomicInteger();
      List<Future<BatchOutcome>> pending = new ArrayList<>();
      try (CloseableIterator<List<String>> batches = plan.batches(phase, failure -> {
        if (!failure.notFound()) {
          unreadable.incrementAndGet();
          LOG.warn("Cleanup job {}: cannot read manifest {}: {}", job.jobId(), failure.manifestPath(), failure.reason());
        }
      })) {
        while (batches.hasNext()) {
          if (lease.lost()) {
            awaitQuietly(pending);
            return new PurgeOutcome.LeaseLost();
          }
          if (lease.stopRequested()) {
            awaitQuietly(pending);
            return new PurgeOutcome.Released();
          }
          List<String> batch = batches.next();
          pending.add(deletePool.submit(() -> {
            if (lease.lost()) {
              return new BatchOutcome(0, 0);
            }
            BatchOutcome o = FileBatchDeleter.delete(io, phase, batch);
            filesDeleted.accept(o.deleted());
            return o;
          }));
        }
      } catch (IOException | RuntimeException e) {
        awaitQuietly(pending);
        return new PurgeOutcome.Transient("cannot stream " + phase + " files: " + oneLine(e));
      }
      int failed = 0;
      for (Future<BatchOutcome> f : pending) {
        BatchOutcome o = DeletePool.await(f);
        deleted += o.deleted();
        failed += o.failed();
      }
      if (lease.lost()) {
        return new PurgeOutcome.LeaseLost();
      }
      if (lease.stopRequested()) {
        return new PurgeOutcome.Released();
      }
      if (failed > 0 || unreadable.get() > 0) {
        // stop before the metadata files go, so the retry can walk the table again
        return new PurgeOutcome.Transient(phase + ": " + failed + " files could not be deleted, "
            + unreadable.get() + " manifests could not be read");
      }
    }
    return new PurgeOutcome.Completed(deleted);
  }

  /**
   * The metadata file is gone: if nothing is left under the table location, a previous attempt
   * finished (the metadata file goes last) and the job succeeded; otherwise it cannot go on.
   */
  private PurgeOutcome missingMetadata(CleanupJob job, FileIO io) {
    String location = tableLocation(job.metadataLocation());
    if (location != null && io instanceof SupportsPrefixOperations prefix) {
      try {
        if (!prefix.listPrefix(location).iterator().hasNext()) {
          return new PurgeOutcome.Completed(0);
        }
      } catch (RuntimeException e) {
        return new PurgeOutcome.Transient("cannot list " + location + ": " + oneLine(e));
      }
    }
    return new PurgeOutcome.Terminal("metadata file " + job.metadataLocation()
        + " does not exist and files remain under the table location; they are not deleted");
  }

  /** {@code <location>/metadata/x.metadata.json} → {@code <location>/}; null if not that shape. */
  static String tableLocation(String metadataLocation) {
    int i = metadataLocation.lastIndexOf("/metadata/");
    return i <= 0 ? null : metadataLocation.substring(0, i + 1);
  }

  private static void awaitQuietly(List<Future<BatchOutcome>> pending) {
    for (Future<BatchOutcome> f : pending) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException ignored) {
        // best effort
      }
    }
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    return m.replace('\n', ' ');
  }
}
