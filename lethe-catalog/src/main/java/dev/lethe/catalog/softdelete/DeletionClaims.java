package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.HeldException;
import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyClaimed;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.ClaimDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.EnqueuePurge;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Finalize;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeTarget;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Held;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NotClaimable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RemoveMetadata;
import dev.lethe.catalog.softdelete.SoftDeletes.Claimed;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a retained deletion (docs/design/0202-soft-deletion.md §6): the claim that expires it
 * (the timer's batch, or purge-now without the deadline), which enqueues its purge or removes its
 * metadata, and the finalization once that purge succeeded. Each transaction locks the record,
 * then the table row, and takes location claims last.
 */
final class DeletionClaims {
  // the lines keep the logger operators filter on (docs/soft-delete.md)
  private static final Logger LOG = LoggerFactory.getLogger(SoftDeletes.class);

  private final CatalogDatabase database;
  private final DatabaseClock clock;
  private final CleanupJobEnqueuer enqueuer;
  private final RetainedTables listing;

  DeletionClaims(CatalogDatabase database, DatabaseClock clock, CleanupJobEnqueuer enqueuer, RetainedTables listing) {
    this.database = database;
    this.clock = clock;
    this.enqueuer = enqueuer;
    this.listing = listing;
  }

  /** {@link SoftDeletes#purgeNowShown}. */
  PurgedNow purgeNowShown(CatalogRow catalog, TableIdentifier id, String requestedBy) {
    Optional<DeletedTable> before = listing.load(catalog, id);
    Claimed c = purgeNow(catalog, id, requestedBy);
    if (c.decision() instanceof NotClaimable n) {
      return new PurgedNow.Refused(n.reason());
    }
    if (c.decision() instanceof RemoveMetadata m) {
      DeletionRecord r = m.record();
      DeletionRecord claimed = new DeletionRecord(r.deletionId(), r.entityType(), r.entityId(), DeletionState.PURGING,
          r.deletedAt(), r.retentionExpiresAt(), r.deletedBy(), r.purgeRequested(), null);
      return new PurgedNow.Removed(new DeletedTable(before.map(DeletedTable::name).orElse(id.name()), claimed, null, false));
    }
    return listing.load(catalog, id).<PurgedNow>map(PurgedNow.Purging::new)
        .orElseGet(() -> new PurgedNow.Refused("no retained deletion (already purged)")); // finalized meanwhile
  }

  /** {@link SoftDeletes#purgeNow}. */
  Claimed purgeNow(CatalogRow catalog, TableIdentifier id, String requestedBy) {
    Optional<TableRow> retained = database.jdbi().withHandle(h -> RetainedTables.namespace(h, catalog, id.namespace())
        .flatMap(ns -> new TableDao(h).findRetained(ns.namespaceId(), id.name())));
    if (retained.isEmpty()) {
      return new Claimed(new NotClaimable("no retained deletion of " + id), null);
    }
    Claimed c = database.jdbi().inTransaction(h -> {
      long now = clock.millis(h);
      Claimed claimed = claim(h, retained.get().deletionId(), now, true, requestedBy);
      applyClaims(h, claimed, now);
      return claimed;
    });
    log(c, true, requestedBy);
    return c;
  }

  /** {@link SoftDeletes#expireDue}. */
  List<Claimed> expireDue(int batchSize) {
    List<String> due = database.jdbi().withHandle(h -> new DeletionDao(h).expiredIds(clock.millis(h), batchSize));
    if (due.isEmpty()) {
      return List.of();
    }
    List<Claimed> applied;
    try {
      applied = claimAll(due);
    } catch (RuntimeException e) {
      // one bad record (or a deadlock with another replica) must not hold the others back
      LOG.warn("Claim of {} expired deletions failed ({}); claiming them one by one", due.size(), e.toString());
      applied = new ArrayList<>();
      for (String deletionId : due) {
        try {
          applied.addAll(claimAll(List.of(deletionId)));
        } catch (RuntimeException one) {
          LOG.warn("Cannot claim expired deletion {}; retrying on the next tick", deletionId, one);
        }
      }
    }
    applied.forEach(c -> log(c, false, null));
    return applied;
  }

  /**
   * Claims the given records in one transaction (timer semantics: only expired ones), in id order
   * so replicas take their locks in one order.
   */
  List<Claimed> claimAll(List<String> deletionIds) {
    List<String> ordered = deletionIds.stream().sorted().toList();
    return database.jdbi().inTransaction(h -> {
      long now = clock.millis(h);
      List<Claimed> out = new ArrayList<>();
      for (String deletionId : ordered) {
        Claimed c = claim(h, deletionId, now, false, null);
        if (c.decision() instanceof EnqueuePurge || c.decision() instanceof RemoveMetadata) {
          out.add(c);
        }
      }
      // location claims last, after every record and row lock of the batch (lock order)
      for (Claimed c : out) {
        applyClaims(h, c, now);
      }
      return out;
    });
  }

  private Claimed claim(Handle h, String deletionId, long now, boolean immediate, String requestedBy) {
    DeletionDao deletions = new DeletionDao(h);
    TableDao tables = new TableDao(h);
    Optional<DeletionRecord> record = deletions.findForUpdate(deletionId);
    Optional<TableRow> row = record.flatMap(r -> tables.findByIdForUpdate(r.entityId()));
    // the hold is read under the record and row locks, in the transaction that would enqueue the purge
    // (docs/design/0444-legal-holds.md)
    Optional<HoldDao.Hold> hold = row.flatMap(r -> new HoldDao(h).coveringTable(r.namespaceId(), r.name(), now));
    ClaimDecision d = SoftDeletePlanner.planClaim(record, row, now, immediate, hold);
    if (d instanceof Held held && immediate) {
      throw new HeldException("Cannot purge the dropped table " + row.get().name() + " now", held.hold());
    }
    if (d instanceof EnqueuePurge e) {
      long jobId = enqueuer.enqueueTable(h, e.row(), requestedBy != null ? requestedBy : e.record().deletedBy(), now,
          immediate ? dev.lethe.catalog.jobs.PurgePath.PURGE_NOW : dev.lethe.catalog.jobs.PurgePath.EXPIRY);
      if (!deletions.markPurging(deletionId, jobId)) {
        throw new IllegalStateException("Cannot claim deletion " + deletionId + ": the locked record changed");
      }
      return new Claimed(d, jobId);
    }
    if (d instanceof RemoveMetadata m) {
      if (m.removeTableRow() && tables.deleteRetained(m.record().entityId(), deletionId) != 1) {
        throw new IllegalStateException("Cannot purge deletion " + deletionId + ": the locked table row changed");
      }
      if (!deletions.deleteUnclaimed(deletionId)) {
        throw new IllegalStateException("Cannot purge deletion " + deletionId + ": the locked record changed");
      }
    }
    return new Claimed(d, d instanceof AlreadyClaimed a ? a.record().purgeJobId() : null);
  }

  /**
   * Rule 2 for a claim applied in this transaction: an enqueued purge takes over the table's
   * location claims (refused with 409 if another entry overlaps them); a metadata-only removal
   * releases them.
   *
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException naming the other entry or job
   */
  private static void applyClaims(Handle h, Claimed c, long now) {
    if (c.decision() instanceof EnqueuePurge e) {
      LocationClaims.transfer(h, e.row().catalogId(), ClaimOwner.table(e.row().tableId()), ClaimOwner.job(c.purgeJobId()),
          () -> TableRoots.assumedFromMetadataFile(e.row().metadataLocation()), now,
          "Cannot purge the dropped table " + new NamespaceDao(h).findById(e.row().namespaceId())
              .map(ns -> String.join(".", NamespaceNames.decode(ns.name()).levels()) + ".").orElse("") + e.row().name()
              + " (entity id " + e.record().entityId() + ")");
    } else if (c.decision() instanceof RemoveMetadata m) {
      LocationClaims.release(h, ClaimOwner.table(m.record().entityId()));
    }
  }

  /**
   * @param purgedNow a purge-now's claim, not the timer's
   * @param requestedBy the admin of a purge-now
   */
  private void log(Claimed c, boolean purgedNow, String requestedBy) {
    // a purge-now ends a deletion before its deadline: "expired" would misread it
    String how = purgedNow ? "purged now by " + requestedBy : "expired";
    if (c.decision() instanceof EnqueuePurge e) {
      // the entity id the listings show, not the internal deletion id
      LOG.info("Deletion of table {} (entityId {}) {}: PURGING, cleanup job {} enqueued", e.row().name(),
          e.record().entityId(), how, c.purgeJobId());
    } else if (c.decision() instanceof RemoveMetadata m) {
      LOG.info("Deletion of entityId {} {}: metadata removed (purgeRequested=false, files kept)",
          m.record().entityId(), how);
    }
  }

  /** {@link SoftDeletes#finalizeSucceeded}. */
  int finalizeSucceeded(int limit) {
    List<DeletionRecord> candidates = database.jdbi().withHandle(h -> new DeletionDao(h).finalizable(limit));
    int done = 0;
    for (DeletionRecord c : candidates) {
      if (finalizeOne(new FinalizeTarget(c.entityId(), c.deletionId(), c.purgeJobId()))) {
        done++;
      }
    }
    return done;
  }

  /** {@link SoftDeletes#finalizeOne}. */
  boolean finalizeOne(FinalizeTarget target) {
    FinalizeDecision d = database.jdbi().inTransaction(h -> {
      DeletionDao deletions = new DeletionDao(h);
      TableDao tables = new TableDao(h);
      Optional<DeletionRecord> record = deletions.findForUpdate(target.deletionId());
      Optional<TableRow> row = tables.findByIdForUpdate(target.tableId());
      FinalizeDecision decision = SoftDeletePlanner.planFinalize(target, record, row,
          new CleanupJobDao(h).find(target.purgeJobId()));
      if (decision instanceof Finalize f) {
        if (f.removeTableRow() && tables.deleteRetained(target.tableId(), target.deletionId()) != 1) {
          throw new IllegalStateException("Cannot finalize deletion " + target.deletionId() + ": the locked row changed");
        }
        if (!deletions.deletePurged(target.deletionId(), target.purgeJobId())) {
          throw new IllegalStateException("Cannot finalize deletion " + target.deletionId() + ": the locked record changed");
        }
      }
      return decision;
    });
    if (d instanceof Finalize) {
      LOG.info("Deletion of entityId {} finalized after cleanup job {} succeeded: table removed, name free",
          target.tableId(), target.purgeJobId());
      return true;
    }
    return false;
  }

}
