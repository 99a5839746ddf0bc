package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJobEnqueuer;
import dev.lethe.catalog.jobs.CredentialCipher;
import dev.lethe.catalog.jobs.DatabaseClock;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyClaimed;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.ClaimDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.CreateRecord;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.DropDecision;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.EnqueuePurge;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeTarget;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoRetainedDeletion;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoTable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NotClaimable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RemoveMetadata;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RestoreDecision;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soft deletion of one server process (docs/design/0202-soft-deletion.md; docs/design/0200-catalog-architecture.md "Soft deletion"):
 * every transaction that reads or writes deletion records. Each one reads {@code now} once from the
 * {@link DatabaseClock}, takes its row locks in one order (record, then table row; a drop locks the
 * table row only), asks {@link SoftDeletePlanner} what to do and applies the answer with guarded
 * statements. It knows nothing of HTTP. Thread-safe; several processes may share one database.
 *
 * <p>The one entry point of the soft deletion: it runs the drop and hands the listings to {@link
 * RetainedTables}, the restore to {@link Restores}, and the expiry claims and finalization to {@link
 * DeletionClaims}.
 *
 * <p>{@link SoftDeleteSettings#enabled()} gates {@link #drop} only (docs/design/0202-soft-deletion.md §7): listing, restore, purge
 * and expiry work on existing records whatever the flag.
 */
public final class SoftDeletes {
  private static final Logger LOG = LoggerFactory.getLogger(SoftDeletes.class);

  private final CatalogDatabase database;
  private final SoftDeleteSettings settings;
  private final Supplier<String> ids;
  private final DatabaseClock clock;
  private final RetainedTables listing;
  private final Restores restores;
  private final DeletionClaims claims;

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
    Objects.requireNonNull(metalakeName);
    this.settings = Objects.requireNonNull(settings);
    Objects.requireNonNull(cipher);
    Objects.requireNonNull(fileIOFactory);
    this.ids = Objects.requireNonNull(ids);
    this.clock = DatabaseClock.of(database.vendor());
    this.listing = new RetainedTables(database, clock, fileIOFactory);
    this.restores = new Restores(database, clock, fileIOFactory, listing);
    this.claims = new DeletionClaims(database, clock, new CleanupJobEnqueuer(database, metalakeName, cipher, fileIOFactory),
        listing);
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
      Optional<NamespaceRow> ns = RetainedTables.namespace(h, catalog, id.namespace());
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
    return listing.list(catalog, namespace);
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
    return listing.list(catalog, namespace, after, size);
  }

  /** The retained table of that name, if any (empty also when the namespace does not exist). */
  public Optional<DeletedTable> load(CatalogRow catalog, TableIdentifier id) {
    return listing.load(catalog, id);
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
    return restores.restore(catalog, id);
  }

  // ---- purge claim (timer and purge-now) and finalization ----

  /** What a claim did to one record. */
  public record Claimed(ClaimDecision decision, Long purgeJobId) {}

  /**
   * {@link #purgeNow} as the admin route shows it: the retained table before and after the claim.
   *
   * @param requestedBy principal recorded as the cleanup job's {@code created_by}
   */
  public PurgedNow purgeNowShown(CatalogRow catalog, TableIdentifier id, String requestedBy) {
    return claims.purgeNowShown(catalog, id, requestedBy);
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
    return claims.purgeNow(catalog, id, requestedBy);
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
    return claims.expireDue(batchSize);
  }

  /**
   * Claims the given records in one transaction (timer semantics: only expired ones), in id order
   * so replicas take their locks in one order. Package-private so tests can hand it stale ids.
   */
  List<Claimed> claimAll(List<String> deletionIds) {
    return claims.claimAll(deletionIds);
  }

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
    return claims.finalizeSucceeded(limit);
  }

  /**
   * Finalizes one claimed deletion if the predicate holds under the locks.
   *
   * @return true if the record was removed
   */
  public boolean finalizeOne(FinalizeTarget target) {
    return claims.finalizeOne(target);
  }
}
