package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.jobs.HeldJobs;
import dev.lethe.catalog.jobs.JobHandler;
import dev.lethe.catalog.jobs.Lease;
import dev.lethe.catalog.jobs.PurgeOutcome;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.ClaimOverlap;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationClaim;
import dev.lethe.catalog.location.LocationClaimDao;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The purge handler: runs one claimed cleanup job and says how it ended, a view's through {@link
 * ViewPurge}, a table's here in named steps ({@code readMetadata}, {@code confine}, {@code plan},
 * {@code deletePhase} per phase, the {@code sweep} before the current metadata file, {@code
 * finalSweep}). The only writes it makes to the job row are its progress, guarded by the lease: the
 * last finished phase and the kept-files count, and the live tally of files and bytes per kind
 * ({@link RunProgress}, docs/design/0445-job-progress-and-receipts.md).
 *
 * <p>It rebuilds the FileIO (from the catalog's current properties if the catalog still exists,
 * else from the encrypted properties captured at drop), re-reads the metadata file, plans with
 * {@link PurgePlanner} (the set of the synchronous purge, {@code gc.enabled=false} honoured) and
 * streams each phase's batches into the shared {@link DeletePool}, finishing a phase before the
 * next so the current metadata file goes last. It checks the lease before every batch and stops at
 * once when it is lost. A phase with undeleted files stops the run before the metadata files go,
 * so a retry can still walk the table; a retry resumes after the last finished phase, whose mark is
 * durable before the next phase deletes anything ({@link CatalogDatabase#awaitDurable()}).
 *
 * <p>Confinement and the sweep (docs/design/0003-purge-sweep-and-kept-files.md): every path is confined
 * by a {@link PurgeScope} (files outside the table's roots are kept and counted), and before the
 * current metadata file goes, {@link LocationSweep} deletes whatever else lies under the roots and
 * the emptied directories. A manifest, manifest list or metadata file it needs and cannot read ends
 * the run naming the file with the metadata kept, unless nothing is left under the roots.
 */
public final class PurgeJobRunner implements JobHandler {
  private static final Logger LOG = LoggerFactory.getLogger(PurgeJobRunner.class);

  private final CatalogDatabase database;
  private final JobFileIO fileIOs;
  private final ViewPurge views;
  private final DeletePool deletePool;
  private final PurgePlanner planner;
  private final LongConsumer filesDeleted;
  private final DatabaseClock clock;

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
    this.fileIOs = new JobFileIO(database, cipher, fileIOFactory);
    this.views = new ViewPurge(database, fileIOs, filesDeleted);
    this.deletePool = deletePool;
    // a missing manifest list is a failure (rule 4): a retry resumes after the recorded phase
    // instead, so it never needs a list an earlier run deleted
    this.planner = new PurgePlanner(deleteBatchSize, PurgePlanner.DEFAULT_DEDUPE_WINDOW, false);
    this.filesDeleted = filesDeleted;
    this.clock = DatabaseClock.of(database.vendor());
  }

  /**
   * Runs the job while {@code lease} holds, by its kind: a table's phases here, a view's files in
   * {@link ViewPurge}; never throws for storage failures.
   */
  @Override
  public PurgeOutcome run(CleanupJob job, Lease lease) {
    RunProgress progress = new RunProgress(database, job, lease, System::nanoTime);
    PurgeOutcome outcome;
    if (job.objectType() == CleanupObjectType.VIEW) {
      progress.start("VIEW_METADATA_FILES");
      outcome = views.run(job, lease);
      if (outcome instanceof PurgeOutcome.Completed c) {
        progress.viewFiles(c.filesDeleted());
      }
    } else {
      outcome = fileIOs.withFileIO(job, io -> runTable(job, io, lease, progress));
    }
    // the tally as the run ended (leftovers included), read by the receipt of a job that ends now
    // (docs/design/0445-job-progress-and-receipts.md); a lost lease writes nothing
    if (!lease.lost()) {
      progress.flush();
    }
    return outcome;
  }

  /**
   * A table job, phase by phase: read the metadata, confine the purge to the table's roots, plan
   * the file phases, delete them in order (the sweep just before the current metadata file), then
   * the final sweep. Each step either hands the next one its input or ends the run.
   */
  private PurgeOutcome runTable(CleanupJob job, FileIO io, Lease lease, RunProgress progress) {
    Step<TableMetadata> read = readMetadata(job, io);
    if (read.ended() != null) {
      return read.ended();
    }
    TableMetadata metadata = read.value();
    Step<PurgeScope> confined = confine(job, metadata);
    if (confined.ended() != null) {
      return confined.ended();
    }
    PurgeScope scope = confined.value();
    // gc.enabled=false: data files may be shared with other tables (Iceberg's meaning), so only the
    // metadata directory is swept and has to end empty
    PurgeScope swept = PurgePlan.sweepScope(metadata, scope);
    Step<PurgePlan> planned = plan(job, io, metadata, scope, swept);
    if (planned.ended() != null) {
      return planned.ended();
    }
    PurgePlan plan = planned.value();
    if (job.purgedThrough() != null) {
      LOG.info("Cleanup job {}: resuming after {}", job.jobId(), job.purgedThrough());
    }
    KeptFiles kept = new KeptFiles(job.keptFiles());
    long deleted = 0;
    PurgePhase lastDone = job.purgedThrough();
    for (PurgePhase phase : plan.phases()) {
      // a hold placed since the claim stops the run before the next phase deletes anything
      // (docs/design/0444-legal-holds.md "A purge under way")
      PurgeOutcome held = held(job);
      if (held != null) {
        logKept(job, kept);
        return held;
      }
      if (phase == PurgePhase.CURRENT_METADATA_FILE) {
        PurgeOutcome ended = sweep(job, io, swept, lease, progress, lastDone, kept);
        if (ended != null) {
          logKept(job, kept);
          return ended;
        }
      }
      Step<Long> done = deletePhase(job, io, plan, phase, swept, kept, lease, progress);
      if (done.ended() != null) {
        return done.ended();
      }
      deleted += done.value();
      lastDone = phase;
    }
    return finalSweep(job, io, metadata, swept, kept, lease, deleted, progress);
  }

  /**
   * What one step of a table job gives the next: its value, or how the run ends.
   *
   * @param value the step's result, null when the run ends here
   * @param ended the outcome of the run, null to go on
   */
  private record Step<T>(T value, PurgeOutcome ended) {
    static <T> Step<T> next(T value) {
      return new Step<>(value, null);
    }

    static <T> Step<T> end(PurgeOutcome ended) {
      return new Step<>(null, ended);
    }
  }

  /** Reads and parses the job's metadata file once: a corrupt file fails at once, never a retry loop. */
  private Step<TableMetadata> readMetadata(CleanupJob job, FileIO io) {
    String json;
    try (InputStream in = io.newInputFile(job.metadataLocation()).newStream()) {
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (NotFoundException e) {
      return Step.end(missingMetadata(job, io));
    } catch (InvalidLocationException e) {
      // reached through a symbolic link: docs/design/0007-no-symbolic-link-below-the-warehouse.md
      return Step.end(new PurgeOutcome.Terminal("cannot read metadata file " + job.metadataLocation() + ": "
          + e.getMessage() + "; nothing is deleted"));
    } catch (IOException | RuntimeException e) {
      if (e.getCause() instanceof java.io.FileNotFoundException || e instanceof java.io.FileNotFoundException) {
        return Step.end(missingMetadata(job, io));
      }
      return Step.end(new PurgeOutcome.Transient("cannot read metadata file " + job.metadataLocation() + ": " + oneLine(e)));
    }
    try {
      return Step.next(TableMetadataParser.fromJson(job.metadataLocation(), json));
    } catch (RuntimeException e) {
      return Step.end(new PurgeOutcome.Terminal("cannot parse metadata file " + job.metadataLocation() + ": " + oneLine(e)
          + "; the table's files are kept"));
    }
  }

  /** The purge's scope: every root the table owned, minus what other entries claim inside them. */
  private Step<PurgeScope> confine(CleanupJob job, TableMetadata metadata) {
    try {
      return Step.next(scope(job, ownedRoots(job, TableRoots.of(metadata).roots())));
    } catch (InvalidLocationException e) {
      return Step.end(new PurgeOutcome.Terminal("cannot confine the purge of " + job.metadataLocation() + ": "
          + e.getMessage() + "; nothing is deleted"));
    }
  }

  /** The file phases still to run (after {@code purgedThrough}); an unreadable manifest list ends the run. */
  private Step<PurgePlan> plan(CleanupJob job, FileIO io, TableMetadata metadata, PurgeScope scope, PurgeScope swept) {
    try {
      return Step.next(planner.plan(io, metadata, scope, job.purgedThrough()));
    } catch (NotFoundException e) {
      return Step.end(unreadable(job, io, swept, "a manifest list of " + job.metadataLocation() + " does not exist: "
          + oneLine(e), true));
    } catch (InvalidLocationException e) {
      return Step.end(unreadable(job, io, swept, "cannot read a manifest list of " + job.metadataLocation() + ": "
          + oneLine(e), true));
    } catch (RuntimeException e) {
      return Step.end(unreadable(job, io, swept, "cannot read a manifest list of " + job.metadataLocation() + ": "
          + oneLine(e), false));
    }
  }

  /**
   * Streams one phase's batches into the delete pool and waits for them; then records the phase as
   * finished, durably, before the next phase deletes anything.
   *
   * @return the files the phase deleted, or how the run ends (lease lost, stop asked, an unreadable
   *     manifest, files that could not be deleted)
   */
  private Step<Long> deletePhase(CleanupJob job, FileIO io, PurgePlan plan, PurgePhase phase, PurgeScope swept,
      KeptFiles kept, Lease lease, RunProgress progress) {
    List<ManifestReadFailure> unreadable = new ArrayList<>();
    List<Future<BatchOutcome>> pending = new ArrayList<>();
    // set by the first batch that finds a hold: no later batch deletes (docs/design/0444-legal-holds.md)
    AtomicReference<PurgeOutcome> heldNow = new AtomicReference<>();
    if (!progress.start(phase.name())) {
      return Step.end(new PurgeOutcome.LeaseLost());
    }
    try (CloseableIterator<List<String>> batches = plan.batches(phase, failure -> {
      unreadable.add(failure);
      progress.unreadable(failure);
      LOG.warn("Cleanup job {}: cannot read manifest {}: {}", job.jobId(), failure.manifestPath(), failure.reason());
    }, keep -> {
      kept.accept(keep);
      progress.kept(keep);
    })) {
      while (batches.hasNext()) {
        if (lease.lost()) {
          awaitQuietly(pending);
          return Step.end(new PurgeOutcome.LeaseLost());
        }
        if (lease.stopRequested()) {
          awaitQuietly(pending);
          return Step.end(new PurgeOutcome.Released());
        }
        if (heldNow.get() != null) {
          awaitQuietly(pending);
          logKept(job, kept);
          return Step.end(heldNow.get());
        }
        List<String> batch = batches.next();
        pending.add(deletePool.submit(() -> {
          if (lease.lost() || heldNow.get() != null) {
            return new BatchOutcome(0, 0);
          }
          // every batch reads the hold just before it deletes: a hold committed before this read
          // stops it, so after a hold only batches already past this line finish
          PurgeOutcome held = held(job);
          if (held != null) {
            heldNow.compareAndSet(null, held);
            return new BatchOutcome(0, 0);
          }
          BatchOutcome o = FileBatchDeleter.delete(io, phase, batch);
          filesDeleted.accept(o.deleted());
          progress.batch(io, plan, phase, batch, o);
          return o;
        }));
        progress.maybeFlush(); // a lost lease is seen at the top of the loop
      }
    } catch (IOException | RuntimeException e) {
      awaitQuietly(pending);
      return Step.end(new PurgeOutcome.Transient("cannot stream " + phase + " files: " + oneLine(e)));
    }
    long deleted = 0;
    int failed = 0;
    for (Future<BatchOutcome> f : pending) {
      BatchOutcome o = DeletePool.await(f);
      deleted += o.deleted();
      failed += o.failed();
    }
    if (lease.lost()) {
      return Step.end(new PurgeOutcome.LeaseLost());
    }
    if (lease.stopRequested()) {
      return Step.end(new PurgeOutcome.Released());
    }
    if (heldNow.get() != null) {
      // the phase is not finished: the resumed run deletes it again, after the release
      logKept(job, kept);
      return Step.end(heldNow.get());
    }
    if (!unreadable.isEmpty()) {
      // rule 4: a manifest it needs is unreadable: stop before the manifests and metadata go, so the
      // table stays walkable and the operator sees which file (docs/design/0003-purge-sweep-and-kept-files.md §3)
      logKept(job, kept);
      ManifestReadFailure first = unreadable.get(0);
      boolean missing = unreadable.stream().anyMatch(ManifestReadFailure::notFound);
      boolean refused = unreadable.stream().anyMatch(ManifestReadFailure::refused);
      String reason = (missing ? "manifest " : "cannot read manifest ") + first.manifestPath()
          + (missing ? " does not exist" : ": " + first.reason().replace('\n', ' '))
          + (unreadable.size() > 1 ? " (and " + (unreadable.size() - 1) + " more)" : "")
          + "; the data files it names cannot be found";
      return Step.end(unreadable(job, io, swept, reason, missing || refused));
    }
    if (failed > 0) {
      // stop before the metadata files go, so the retry can walk the table again
      logKept(job, kept);
      return Step.end(new PurgeOutcome.Transient(phase + ": " + failed + " files could not be deleted"));
    }
    if (!progress.finished(phase, kept.count())) {
      return Step.end(new PurgeOutcome.LeaseLost());
    }
    // the next phase deletes what a retry without this mark would need to read
    // (docs/design/0054-no-file-deleted-before-the-drop-is-durable.md)
    database.awaitDurable();
    return Step.next(deleted);
  }

  /**
   * After the last phase: removes the emptied directories and checks that nothing is left under the
   * roots, sweeping them once more if something appeared.
   *
   * @param deleted files deleted by the phases
   */
  private PurgeOutcome finalSweep(CleanupJob job, FileIO io, TableMetadata metadata, PurgeScope swept, KeptFiles kept,
      Lease lease, long deleted, RunProgress progress) {
    LocationPath.tryParse(metadata.metadataFileLocation()).ifPresent(m -> LocationSweep.removeEmptyParents(m, swept, io));
    logKept(job, kept);
    LocationSweep.Result left = LocationSweep.probe(io, swept);
    if (left.remaining() > 0 || left.failed() > 0) {
      // a writer that lost the race to the drop (its commit gets 404) may have written into the
      // dropped table's own location while the purge ran; the metadata is gone now, so a retry could
      // not rebuild the roots: sweep them once more while they are known
      // (docs/design/0003-purge-sweep-and-kept-files.md)
      PurgeOutcome held = held(job);
      if (held != null) {
        return held;
      }
      LocationSweep.Result again = LocationSweep.sweep(io, swept, Set.of(), planner.batchSize(),
          () -> lease.lost() || lease.stopRequested());
      filesDeleted.accept(again.deleted());
      progress.start("FINAL_SWEEP");
      progress.swept(again);
      deleted += again.deleted();
      LocationPath.tryParse(metadata.metadataFileLocation()).ifPresent(m -> LocationSweep.removeEmptyParents(m, swept, io));
      left = LocationSweep.probe(io, swept);
    }
    if (left.remaining() > 0 || left.failed() > 0) {
      // a writer still writing into the dropped table's location
      progress.tally().leftovers(left.remaining() + left.failed(), left.examples());
      return new PurgeOutcome.Transient("files appeared under " + swept.roots() + " during the purge, e.g. "
          + String.join(", ", left.examples()));
    }
    return new PurgeOutcome.Completed(deleted);
  }

  /** The outcome of a run a legal hold now stops, or null when none covers the job's table. */
  private PurgeOutcome held(CleanupJob job) {
    return database.background().withHandle(h -> {
      long now = clock.millis(h);
      return HeldJobs.holding(h, job, now).<PurgeOutcome>map(hold -> HeldJobs.outcome(hold, now)).orElse(null);
    });
  }

  /**
   * Rule 4: sweeps the roots for what the metadata did not name, leaving the current metadata file
   * (deleted last by the caller).
   *
   * @return null to go on, else how the run ends
   */
  private PurgeOutcome sweep(CleanupJob job, FileIO io, PurgeScope scope, Lease lease, RunProgress progress,
      PurgePhase lastDone, KeptFiles kept) {
    if (!progress.start("SWEEP")) {
      return new PurgeOutcome.LeaseLost();
    }
    Set<LocationPath> keep = new HashSet<>();
    LocationPath.tryParse(job.metadataLocation()).ifPresent(keep::add);
    LocationSweep.Result r = LocationSweep.sweep(io, scope, keep, planner.batchSize(),
        () -> lease.lost() || lease.stopRequested());
    filesDeleted.accept(r.deleted());
    progress.swept(r);
    // the swept files are gone whatever the sweep ends with and a re-sweep finds none of them: the
    // checkpoint counts them now (docs/design/0445-job-progress-and-receipts.md)
    if (lastDone != null && !lease.lost() && !progress.finished(lastDone, kept.count())) {
      return new PurgeOutcome.LeaseLost();
    }
    if (lease.lost()) {
      return new PurgeOutcome.LeaseLost();
    }
    if (lease.stopRequested()) {
      return new PurgeOutcome.Released();
    }
    if (r.deleted() > 0) {
      LOG.info("Cleanup job {}: swept {} files the metadata did not name and {} directories under {}", job.jobId(),
          r.deleted(), r.directoriesRemoved(), scope.roots());
    }
    if (r.failed() > 0) {
      return new PurgeOutcome.Transient("sweep: " + r.failed() + " files or directories under " + scope.roots()
          + " could not be deleted, e.g. " + String.join(", ", r.examples()));
    }
    if (!r.listable()) {
      LOG.warn("Cleanup job {}: {} could not be listed; files the metadata does not name may remain", job.jobId(),
          scope.roots());
    }
    return null;
  }

  /**
   * A file the purge needs cannot be read: FAILED (terminal) or retried (transient), naming the
   * file, with the metadata kept — unless nothing is left under the roots (an earlier run finished).
   */
  private PurgeOutcome unreadable(CleanupJob job, FileIO io, PurgeScope scope, String reason, boolean terminal) {
    LocationSweep.Result probe = LocationSweep.probe(io, scope);
    if (probe.listable() && probe.remaining() == 0 && probe.failed() == 0) {
      LOG.info("Cleanup job {}: {}, but nothing is left under {}: done", job.jobId(), reason, scope.roots());
      return new PurgeOutcome.Completed(0);
    }
    String full = reason + "; the table's metadata and remaining files are kept";
    return terminal ? new PurgeOutcome.Terminal(full) : new PurgeOutcome.Transient(full);
  }

  /**
   * Every root the dropped table owned: those of its current metadata and the earlier locations and
   * write paths its kept snapshots still used, which its claims (handed to the job) name
   * (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md).
   */
  private List<LocationPath> ownedRoots(CleanupJob job, List<LocationPath> current) {
    return PurgeConfinement.ownedRoots(database, ClaimOwner.job(job.jobId()), current);
  }

  /** The scope of a job: the roots, minus what other entries claim inside them. */
  private PurgeScope scope(CleanupJob job, List<LocationPath> roots) {
    PurgeScope scope = PurgeConfinement.scope(database, ClaimOwner.job(job.jobId()), roots);
    if (!scope.excluded().isEmpty()) {
      LOG.warn("Cleanup job {}: other entries claim {} inside the table's roots; the purge does not touch them",
          job.jobId(), scope.excluded());
    }
    return scope;
  }

  private static void logKept(CleanupJob job, KeptFiles kept) {
    if (kept.count() > 0) {
      LOG.warn("Cleanup job {}: {}", job.jobId(), kept.summary());
    }
  }

  /**
   * The metadata file is gone: if nothing is left under the table's roots (from the job's location
   * claims, else the directory holding the metadata directory), a previous attempt finished (the
   * metadata file goes last) and the job succeeded; otherwise it cannot go on.
   */
  private PurgeOutcome missingMetadata(CleanupJob job, FileIO io) {
    List<LocationPath> roots;
    try {
      roots = database.background().withHandle(h -> new LocationClaimDao(h).findByOwner(ClaimOwner.job(job.jobId())))
          .stream().map(LocationClaim::root).toList();
      if (roots.isEmpty()) {
        roots = TableRoots.assumedFromMetadataFile(job.metadataLocation());
      }
    } catch (InvalidLocationException e) {
      return new PurgeOutcome.Terminal("metadata file " + job.metadataLocation() + " does not exist and the table's "
          + "location cannot be derived from it: " + e.getMessage());
    }
    PurgeScope scope = scope(job, roots);
    LocationSweep.Result probe = LocationSweep.probe(io, scope);
    if (probe.listable() && probe.remaining() == 0 && probe.failed() == 0) {
      return new PurgeOutcome.Completed(0);
    }
    return new PurgeOutcome.Terminal("metadata file " + job.metadataLocation()
        + " does not exist and files remain under the table location "
        + (probe.examples().isEmpty() ? scope.roots().toString() : "(e.g. " + String.join(", ", probe.examples()) + ")")
        + "; they are not deleted");
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
    return JobFileIO.oneLine(e);
  }
}
