package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJobDao;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyClaimed;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.ClaimDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.CreateRecord;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.DropDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.EnqueuePurge;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Finalize;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeTarget;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoRetainedDeletion;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoTable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NotClaimable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RemoveMetadata;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RestoreDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soft deletion of one server process (docs/design/0202-soft-deletion.md; docs/design/0200-catalog-architecture.md "Soft deletion"):
 * every transaction that reads or writes deletion records. Each one reads {@code now} once from the
 * {@link DatabaseClock}, takes its row locks in one order (record, then table row; a drop locks the
 * table row only), asks {@link SoftDeletePlanner} what to do and applies the answer with guarded
 * statements. It knows nothing of HTTP. Thread-safe; several processes may share one database.
 *
 * <p>{@link SoftDeleteSettings#enabled()} gates {@link #drop} only (docs/design/0202-soft-deletion.md §7): listing, restore, purge
 * and expiry work on existing records whatever the flag.
 */
public final class SoftDeletes {
  private static final Logger LOG = LoggerFactory.getLogger(SoftDeletes.class);
  /** Attempts of a restore whose record was replaced between the name lookup and the lock. */
  private static final int RESTORE_ATTEMPTS = 3;

  private final CatalogDatabase database;
  private final String metalakeName;
  private final SoftDeleteSettings settings;
  private final CredentialCipher cipher;
  private final FileIOFactory fileIOFactory;
  private final Supplier<String> ids;
  private final DatabaseClock clock;
  private final CleanupJobEnqueuer enqueuer;

  /**
   * @param database the catalog database (entities, cleanup jobs, deletion records)
   * @param metalakeName the metalake served, recorded on the cleanup jobs the purge enqueues
   * @param settings flag, retention, timer interval
   * @param cipher encrypts the FileIO properties captured on a cleanup job
   * @param fileIOFactory decides the FileIO implementation recorded on a cleanup job
   * @param ids source of deletion ids (UUID strings)
   */
  public SoftDeletes(CatalogDatabase database, String metalakeName, SoftDeleteSettings settings, CredentialCipher cipher,
      FileIOFactory fileIOFactory, Supplier<String> ids) {
    this.database = Objects.requireNonNull(database);
    this.metalakeName = Objects.requireNonNull(metalakeName);
    this.settings = Objects.requireNonNull(settings);
    this.cipher = Objects.requireNonNull(cipher);
    this.fileIOFactory = Objects.requireNonNull(fileIOFactory);
    this.ids = Objects.requireNonNull(ids);
    this.clock = DatabaseClock.of(database.vendor());
    this.enqueuer = new CleanupJobEnqueuer(database, metalakeName, cipher, fileIOFactory);
  }

  /** The settings in force. */
  public SoftDeleteSettings settings() {
    return settings;
  }

  /** Whether drops write deletion records ({@code lethe.entity.soft-delete.enabled}). */
  public boolean enabled() {
    return settings.enabled();
  }

  // ---- drop ----

  /**
   * The soft drop (docs/design/0202-soft-deletion.md §4 "Drop"): in one transaction, lock the row holding the name, and if it is
   * live insert a {@code DELETED} record (deadline {@code now + retention-ms}) and point the row at
   * it. The row, its metadata location and its files stay; the table vanishes from live reads and
   * keeps its name.
   *
   * @param deletedBy principal, not null ({@code anonymous} when auth is off)
   * @param purgeRequested the drop's {@code purgeRequested}, consumed by the purge at expiry
   * @return {@link CreateRecord} (applied), {@link SoftDeletePlanner.AlreadyDropped} (a replayed
   *     drop: nothing created) or {@link NoTable}
   * @throws IllegalStateException if soft delete is off (the caller takes another drop path)
   */
  public DropDecision drop(CatalogRow catalog, TableIdentifier id, String deletedBy, boolean purgeRequested) {
    if (!settings.enabled()) {
      throw new IllegalStateException("Cannot soft-drop " + id + ": lethe.entity.soft-delete.enabled is false");
    }
    Objects.requireNonNull(deletedBy, "deletedBy");
    DropDecision decision = database.jdbi().inTransaction(h -> {
      long now = clock.millis(h);
      Optional<NamespaceRow> ns = namespace(h, catalog, id.namespace());
      if (ns.isEmpty()) {
        return new NoTable();
      }
      TableDao tables = new TableDao(h);
      Optional<TableRow> holder = tables.findNameHolderForUpdate(ns.get().namespaceId(), id.name());
      DropDecision d = SoftDeletePlanner.planDrop(holder, ids.get(), now, settings.retentionMs(), deletedBy, purgeRequested);
      if (d instanceof CreateRecord create) {
        new DeletionDao(h).insert(create.record());
        if (tables.setDeletionId(holder.get().tableId(), create.record().deletionId()) != 1) {
          throw new IllegalStateException("Cannot soft-drop " + id + ": the locked row is no longer live");
        }
      }
      return d;
    });
    if (decision instanceof CreateRecord create) {
      // the entity id and both times as the listings show them (entityId, retentionExpiresAt in ms since epoch)
      long until = create.record().retentionExpiresAt();
      LOG.info("Soft-dropped table {}.{} (entityId {}, recoverable until {} = {} ms, purgeRequested={}, by {})",
          catalog.name(), id, create.record().entityId(), java.time.Instant.ofEpochMilli(until), until, purgeRequested,
          deletedBy);
    }
    return decision;
  }

  // ---- reads ----

  /**
   * The retained tables of a namespace, by name, with recoverability at the database's now.
   *
   * @return empty if the namespace does not exist
   */
  public Optional<List<DeletedTable>> list(CatalogRow catalog, Namespace namespace) {
    Optional<List<Listed>> listed = database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      return namespace(h, catalog, namespace).map(ns -> new DeletionDao(h).listRetained(ns.namespaceId()).stream()
          .map(r -> listed(tables, r, now))
          .toList());
    });
    return listed.map(l -> withFileCheck(catalog, l));
  }

  /**
   * One page of the retained tables of a namespace, by name, with recoverability at the database's
   * now (docs/design/0403-keyset-catalog-listings.md).
   *
   * @param after the previous page's last table name, or null for the first page
   * @param size the page size, at least 1
   * @return empty if the namespace does not exist; the page's cursor is a table name
   */
  public Optional<KeysetPage<DeletedTable>> list(CatalogRow catalog, Namespace namespace, String after, int size) {
    Optional<KeysetPage<Listed>> listed = database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      return namespace(h, catalog, namespace).map(ns -> new DeletionDao(h).listRetainedPage(ns.namespaceId(), after, size)
          .map(r -> listed(tables, r, now)));
    });
    return listed.map(page -> new KeysetPage<>(withFileCheck(catalog, page.items()), page.next()));
  }

  /** The retained table of that name, if any (empty also when the namespace does not exist). */
  public Optional<DeletedTable> load(CatalogRow catalog, TableIdentifier id) {
    Optional<Listed> listed = database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      return namespace(h, catalog, id.namespace())
          .flatMap(ns -> new DeletionDao(h).findRetained(ns.namespaceId(), id.name()))
          .map(r -> listed(tables, r, now));
    });
    return listed.map(l -> withFileCheck(catalog, List.of(l)).get(0));
  }

  /** A retained table read from the database, and the metadata file the listing checks. */
  private record Listed(DeletedTable table, String metadataLocation) {}

  private static Listed listed(TableDao tables, RetainedDeletion r, long now) {
    DeletedTable t = new DeletedTable(r.tableName(), r.record(), r.purgeJobState(),
        SoftDeletePlanner.recoverable(r.record(), now));
    return new Listed(t, tables.findById(r.record().entityId()).map(TableRow::metadataLocation).orElse(null));
  }

  /**
   * The listing's side of docs/design/0301-hollow-restore.md: a recoverable entry whose current
   * metadata file is gone is shown as not recoverable, with the reason. One existence test per entry,
   * after the database read; a FileIO failure leaves the entry as the database says (undrop checks
   * again, deeper).
   */
  private List<DeletedTable> withFileCheck(CatalogRow catalog, List<Listed> listed) {
    if (listed.stream().noneMatch(l -> l.table().recoverable() && l.metadataLocation() != null)) {
      return listed.stream().map(Listed::table).toList();
    }
    List<DeletedTable> out = new ArrayList<>();
    try (FileIO io = fileIOFactory.create(catalog.warehouse(), catalog.properties())) {
      ReadableFiles.Probe probe = ReadableFiles.probe(io);
      for (Listed l : listed) {
        DeletedTable t = l.table();
        if (t.recoverable() && l.metadataLocation() != null) {
          try {
            if (ReadableFiles.checkMetadataFile(l.metadataLocation(), probe) instanceof ReadableFiles.Hollow hollow) {
              t = new DeletedTable(t.name(), t.record(), t.purgeJobState(), false, hollow.reason());
            }
          } catch (RuntimeException e) {
            LOG.warn("Cannot check the metadata file of retained table {}: {}", t.name(), e.toString());
          }
        }
        out.add(t);
      }
    }
    return out;
  }

  // ---- restore ----

  /**
   * The restore (docs/design/0202-soft-deletion.md §4 "Restore"): in one transaction, lock the record, then the table row, check the
   * recoverability predicate, clear the row's pointer and remove the record. The table comes back
   * with the same id, metadata location and files. A replayed restore finds no record (404).
   *
   * @return {@link Restore} (applied; carries the restored row), {@link NoRetainedDeletion} (404),
   *     {@link SoftDeletePlanner.Gone} (410) or {@link SoftDeletePlanner.Hollow} (409: files the table
   *     needs were deleted outside the catalog)
   */
  public RestoreDecision restore(CatalogRow catalog, TableIdentifier id) {
    Optional<RestoreDecision> hollow = hollow(catalog, id);
    if (hollow.isPresent()) {
      return hollow.get();
    }
    for (int attempt = 1; ; attempt++) {
      Optional<RestoreDecision> done = database.jdbi().inTransaction(h -> restoreOnce(h, catalog, id));
      if (done.isPresent()) {
        if (done.get() instanceof Restore r) {
          LOG.info("Restored table {}.{} (deletion {})", catalog.name(), id, r.record().deletionId());
        }
        return done.get();
      }
      if (attempt >= RESTORE_ATTEMPTS) {
        return new NoRetainedDeletion("the deletion of " + id + " changed concurrently; retry");
      }
    }
  }

  /**
   * Never restore a hollow table (docs/design/0301-hollow-restore.md): before the restore
   * transaction, and outside it (no file I/O under row locks), a recoverable retained table's
   * metadata file, current manifest list and manifests must exist. A non-recoverable one is left to
   * the transaction, which answers 404 or 410 as before.
   */
  private Optional<RestoreDecision> hollow(CatalogRow catalog, TableIdentifier id) {
    Optional<Listed> listed = database.jdbi().withHandle(h -> {
      long now = clock.millis(h);
      TableDao tables = new TableDao(h);
      return namespace(h, catalog, id.namespace())
          .flatMap(ns -> new DeletionDao(h).findRetained(ns.namespaceId(), id.name()))
          .map(r -> listed(tables, r, now));
    });
    if (listed.isEmpty() || !listed.get().table().recoverable() || listed.get().metadataLocation() == null) {
      return Optional.empty();
    }
    try (FileIO io = fileIOFactory.create(catalog.warehouse(), catalog.properties())) {
      if (ReadableFiles.check(listed.get().metadataLocation(), ReadableFiles.probe(io))
          instanceof ReadableFiles.Hollow h) {
        LOG.warn("Refused to undrop {}.{}: {}", catalog.name(), id, h.detail());
        return Optional.of(new SoftDeletePlanner.Hollow(h.detail()));
      }
    }
    return Optional.empty();
  }

  /** One attempt; empty means the record was replaced between the lookup and the lock: retry. */
  private Optional<RestoreDecision> restoreOnce(Handle h, CatalogRow catalog, TableIdentifier id) {
    long now = clock.millis(h);
    Optional<NamespaceRow> ns = namespace(h, catalog, id.namespace());
    if (ns.isEmpty()) {
      return Optional.of(new NoRetainedDeletion("namespace does not exist: " + id.namespace()));
    }
    TableDao tables = new TableDao(h);
    Optional<TableRow> byName = tables.findRetained(ns.get().namespaceId(), id.name());
    if (byName.isEmpty()) {
      boolean live = tables.find(ns.get().namespaceId(), id.name()).isPresent();
      return Optional.of(new NoRetainedDeletion(live ? "table " + id + " is live, not dropped" : "no retained deletion of " + id));
    }
    DeletionDao deletions = new DeletionDao(h);
    Optional<DeletionRecord> record = deletions.findForUpdate(byName.get().deletionId());
    Optional<TableRow> row = tables.findByIdForUpdate(byName.get().tableId());
    if (record.isEmpty() && row.map(TableRow::deletionId).filter(d -> !d.equals(byName.get().deletionId())).isPresent()) {
      return Optional.empty(); // restored and dropped again meanwhile: look the name up again
    }
    RestoreDecision d = SoftDeletePlanner.planRestore(record, row, now);
    if (d instanceof Restore r) {
      if (tables.clearDeletionId(r.row().tableId(), r.record().deletionId()) != 1
          || !deletions.deleteUnclaimed(r.record().deletionId())) {
        throw new IllegalStateException("Cannot restore " + id + ": locked rows changed");
      }
      // rule 2, after the record and row locks: the table comes back only if no other entry overlaps it
      LocationClaims.checkHeld(h, r.row().catalogId(), ClaimOwner.table(r.row().tableId()),
          () -> TableRoots.assumedFromMetadataFile(r.row().metadataLocation()), now, "Cannot undrop " + id);
    }
    return Optional.of(d);
  }

  // ---- purge claim (timer and purge-now) ----

  /** What a claim did to one record. */
  public record Claimed(ClaimDecision decision, Long purgeJobId) {}

  /**
   * {@link #purgeNow} as the admin route shows it: the retained table before and after the claim.
   *
   * @param requestedBy principal recorded as the cleanup job's {@code created_by}
   */
  public PurgedNow purgeNowShown(CatalogRow catalog, TableIdentifier id, String requestedBy) {
    Optional<DeletedTable> before = load(catalog, id);
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
    return load(catalog, id).<PurgedNow>map(PurgedNow.Purging::new)
        .orElseGet(() -> new PurgedNow.Refused("no retained deletion (already purged)")); // finalized meanwhile
  }

  /**
   * Expires a retained deletion now, through the same claim as the timer but without waiting for
   * the deadline (admin purge-now).
   *
   * @param requestedBy principal recorded as the cleanup job's {@code created_by}
   * @return the claim applied: {@link EnqueuePurge} (a job was inserted; its id is given), {@link
   *     RemoveMetadata} (purge not requested: row and record removed at once, files kept), {@link
   *     AlreadyClaimed} (a purge owns it already) or {@link NotClaimable} (no retained deletion)
   */
  public Claimed purgeNow(CatalogRow catalog, TableIdentifier id, String requestedBy) {
    Optional<TableRow> retained = database.jdbi().withHandle(h -> namespace(h, catalog, id.namespace())
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
    log(c);
    return c;
  }

  /**
   * The timer's claim (docs/design/0202-soft-deletion.md §6 phase 1): reads up to {@code batchSize} expired record ids, then claims
   * them in <b>one</b> transaction, each under its record and table row locks, re-checking the
   * deadline there. Records another replica claimed meanwhile are skipped, so no record gets two
   * jobs.
   *
   * @return the claims applied (jobs inserted or metadata removed)
   */
  public List<Claimed> expireDue(int batchSize) {
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
    applied.forEach(this::log);
    return applied;
  }

  /**
   * Claims the given records in one transaction (timer semantics: only expired ones), in id order
   * so replicas take their locks in one order. Package-private so tests can hand it stale ids.
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
    ClaimDecision d = SoftDeletePlanner.planClaim(record, row, now, immediate);
    if (d instanceof EnqueuePurge e) {
      long jobId = enqueuer.enqueueTable(h, e.row(), requestedBy != null ? requestedBy : e.record().deletedBy(), now);
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
              + " (deletion " + e.record().deletionId() + ")");
    } else if (c.decision() instanceof RemoveMetadata m) {
      LocationClaims.release(h, ClaimOwner.table(m.record().entityId()));
    }
  }

  private void log(Claimed c) {
    if (c.decision() instanceof EnqueuePurge e) {
      LOG.info("Deletion {} of table {} expired: PURGING, cleanup job {} enqueued", e.record().deletionId(),
          e.row().name(), c.purgeJobId());
    } else if (c.decision() instanceof RemoveMetadata m) {
      LOG.info("Deletion {} expired: metadata removed (purgeRequested=false, files kept)", m.record().deletionId());
    }
  }

  // ---- finalization ----

  /**
   * Finalization (docs/design/0202-soft-deletion.md §6 phase 3): for up to {@code limit} records whose cleanup job {@code
   * SUCCEEDED}, one transaction each locks the record, then the table row, re-checks the
   * finalization predicate ({@link SoftDeletePlanner#planFinalize}) and removes the table row and
   * then the record. A {@code FAILED} job is never finalized: its record stays {@code PURGING} and
   * its name reserved.
   *
   * @return how many records were removed
   */
  public int finalizeSucceeded(int limit) {
    List<DeletionRecord> candidates = database.jdbi().withHandle(h -> new DeletionDao(h).finalizable(limit));
    int done = 0;
    for (DeletionRecord c : candidates) {
      if (finalizeOne(new FinalizeTarget(c.entityId(), c.deletionId(), c.purgeJobId()))) {
        done++;
      }
    }
    return done;
  }

  /**
   * Finalizes one claimed deletion if the predicate holds under the locks.
   *
   * @return true if the record was removed
   */
  public boolean finalizeOne(FinalizeTarget target) {
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
      LOG.info("Deletion {} finalized after cleanup job {} succeeded: table {} removed, name free", target.deletionId(),
          target.purgeJobId(), target.tableId());
      return true;
    }
    return false;
  }

  private static Optional<NamespaceRow> namespace(Handle h, CatalogRow catalog, Namespace namespace) {
    if (namespace.isEmpty()) {
      return Optional.empty();
    }
    return new NamespaceDao(h).find(catalog.catalogId(), NamespaceNames.encode(namespace));
  }
}
