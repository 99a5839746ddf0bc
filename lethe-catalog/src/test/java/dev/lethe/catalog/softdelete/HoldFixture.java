package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.Holds;
import dev.lethe.catalog.jobs.JobClaimer;
import dev.lethe.catalog.jobs.PurgeJobExecutor;
import dev.lethe.catalog.purge.DeletePool;
import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.purge.PurgeJobRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * {@link SoftDeleteFixture} with legal holds (docs/design/0444-legal-holds.md): the {@link Holds}
 * service, the async enqueuer, and a purge worker driven step by step on the test thread (claim,
 * run, until nothing is claimable).
 */
abstract class HoldFixture extends SoftDeleteFixture {
  Holds holds;
  CleanupJobEnqueuer enqueuer;
  JobClaimer claimer;
  PurgeJobExecutor executor;

  void openHolds(String backend) throws Exception {
    open(backend);
    holds = new Holds(db, () -> UUID.randomUUID().toString(), () -> {}, e -> {});
    enqueuer = new CleanupJobEnqueuer(db, "default", cipher, new FileIOFactory());
    AsyncPurgeSettings s = new AsyncPurgeSettings(0, 2, 100, 20, 60_000, 5, 720);
    DeletePool deletes = new DeletePool(s.deleteThreads(), s.deleteThreads());
    PurgeJobRunner runner = new PurgeJobRunner(db, cipher, new FileIOFactory(), deletes, s.deleteBatchSize(), n -> {});
    executor = new PurgeJobExecutor(db, s, runner, e -> {}, null);
    claimer = JobClaimer.forDatabase(db);
    closeables.add(0, deletes);
    closeables.add(0, executor);
  }

  HoldDao.Hold holdTable(Namespace ns, String name) {
    return holds.place(row, HoldDao.Kind.TABLE, NamespaceNames.encode(ns), name, "legal", "matter 42", null).hold();
  }

  HoldDao.Hold holdNamespace(Namespace ns) {
    return holds.place(row, HoldDao.Kind.NAMESPACE, NamespaceNames.encode(ns), "", "legal", "matter 7", null).hold();
  }

  List<HoldDao.Hold> releaseTable(Namespace ns, String name) {
    return holds.release(row, HoldDao.Kind.TABLE, NamespaceNames.encode(ns), name, "legal-2");
  }

  List<HoldDao.Hold> releaseNamespace(Namespace ns) {
    return holds.release(row, HoldDao.Kind.NAMESPACE, NamespaceNames.encode(ns), "", "legal-2");
  }

  /** Claims and runs jobs on this thread until none is claimable; returns the outcomes. */
  List<PurgeJobExecutor.Finished> runWorker() {
    List<PurgeJobExecutor.Finished> done = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Optional<JobClaimer.Claimed> c = claimer.claim(60_000);
      if (c.isEmpty()) {
        return done;
      }
      done.add(executor.execute(c.get(), false));
    }
    throw new AssertionError("the worker never ran dry: " + done);
  }

  CleanupJob job(long id) {
    return db.jdbi().withHandle(h -> new CleanupJobDao(h).find(id)).orElseThrow();
  }

  long jobCount() {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM lethe_cleanup_job").mapTo(Long.class).one());
  }

  /** A table with real Parquet data files in any namespace: created, then one append of two files. */
  Table createWithData(TableIdentifier id) {
    Table t = catalog.createTable(id, ParquetTables.SCHEMA, ParquetTables.SPEC);
    ParquetTables.append(t, 0);
    return t;
  }
}
