package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.FileKind;
import dev.lethe.catalog.jobs.JobProgress;
import dev.lethe.catalog.jobs.KeptReason;
import dev.lethe.catalog.jobs.Lease;
import dev.lethe.catalog.jobs.PurgePhase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.iceberg.io.FileIO;

/**
 * The progress of one run of a job, written to its row (docs/design/0445-job-progress-and-receipts.md):
 * the tally starts from the row's checkpoint (the tally as of the last finished phase, so files a
 * lost run deleted in an unfinished phase are counted once, when the re-run deletes them again as
 * already gone), the delete pool's threads add each batch to it, and the runner's thread writes it at
 * most once a second between batches, at each phase's start and end, and when the run ends. Every
 * write is guarded by the lease: a worker whose job another replica claimed writes nothing, and its
 * lease is marked lost so it stops.
 */
final class RunProgress {
  /** Least time between two writes of the live tally while batches stream. */
  static final long FLUSH_INTERVAL_MS = 1000;

  private final CatalogDatabase database;
  private final CleanupJob job;
  private final Lease lease;
  private final LongSupplier nanos;
  private final JobProgress tally;
  private volatile String phase;
  private long lastFlushNanos;

  RunProgress(CatalogDatabase database, CleanupJob job, Lease lease, LongSupplier nanos) {
    this.database = database;
    this.job = job;
    this.lease = lease;
    this.nanos = nanos;
    this.tally = JobProgress.fromJson(job.activity().checkpoint()).withoutLeftovers();
    this.lastFlushNanos = nanos.getAsLong();
  }

  JobProgress tally() {
    return tally;
  }

  /** A kept path of the scope (rule 1), counted under its reason. */
  void kept(PurgeScope.Keep keep) {
    tally.kept(KeptReason.ofScopeReason(keep.reason()), keep.path());
  }

  /** A manifest that could not be read: kept, with the files it names. */
  void unreadable(ManifestReadFailure failure) {
    tally.kept(KeptReason.UNREADABLE_MANIFEST, failure.manifestPath());
  }

  /**
   * Counts one deleted batch of a phase; when some files could not be deleted, asks the FileIO which
   * remain (a bulk failure does not name them) and counts those as leftovers. Called on a delete
   * pool thread.
   */
  void batch(FileIO io, PurgePlan plan, PurgePhase phase, List<String> batch, BatchOutcome outcome) {
    List<String> remaining = new ArrayList<>();
    if (outcome.failed() > 0) {
      for (String path : batch) {
        if (stillThere(io, path)) {
          remaining.add(path);
        }
      }
      tally.leftovers(outcome.failed(), remaining);
    }
    long counted = 0;
    for (String path : batch) {
      PurgePlan.FileFacts facts = plan.facts(phase, path);
      if (remaining.contains(path) || counted >= outcome.deleted()) {
        continue;
      }
      counted++;
      tally.deleted(facts.kind(), 1, facts.size() == null ? 0 : facts.size(), facts.size() == null ? 1 : 0);
    }
  }

  /** Counts files a sweep deleted ({@link FileKind#OTHER}) with the listing's bytes. */
  void swept(LocationSweep.Result r) {
    if (r.deleted() > 0) {
      tally.deleted(FileKind.OTHER, r.deleted(), r.bytes(), 0);
    }
    if (r.failed() > 0) {
      tally.leftovers(r.failed(), r.examples());
    }
  }

  /** Counts the files of a view purge (metadata files, of unknown size). */
  void viewFiles(long deleted) {
    tally.deleted(FileKind.METADATA_FILES, deleted, 0, deleted);
  }

  /** A phase starts: written at once. @return false if the lease is lost */
  boolean start(String name) {
    phase = name;
    return flush();
  }

  /** Between batches: written if a second passed since the last write. @return false if the lease is lost */
  boolean maybeFlush() {
    if (TimeUnit.NANOSECONDS.toMillis(nanos.getAsLong() - lastFlushNanos) < FLUSH_INTERVAL_MS) {
      return !lease.lost();
    }
    return flush();
  }

  /** Writes the live tally now. @return false if the lease is lost */
  boolean flush() {
    lastFlushNanos = nanos.getAsLong();
    String p = phase == null ? "STARTING" : phase;
    return lease.writeGuarded(last -> database.background().withHandle(h ->
        new CleanupJobDao(h).writeProgress(job.jobId(), last, p, tally)), null);
  }

  /** A phase finished: the mark, the kept count and the tally as the checkpoint. @return false if the lease is lost */
  boolean finished(PurgePhase done, long keptFiles) {
    lastFlushNanos = nanos.getAsLong();
    return lease.writeGuarded(last -> database.background().withHandle(h ->
        new CleanupJobDao(h).recordProgress(job.jobId(), last, done, keptFiles, tally)), null);
  }

  private static boolean stillThere(FileIO io, String path) {
    try {
      return io.newInputFile(path).exists();
    } catch (RuntimeException e) {
      return true; // cannot tell: say it may remain
    }
  }
}
