package dev.lethe.catalog.softdelete;

import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.KeysetPage;
import dev.lethe.catalog.jobs.CleanupJobState;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * SQL of table {@code lethe_entity_deletion}: the one place that reads or writes it (docs/design/0202-soft-deletion.md
 * §3, §4, §6). Times ({@code now}) are ms since epoch on the database clock. State
 * changes and removals are guarded statements whose row count tells the caller whether they applied;
 * the rules that decide them are in {@link SoftDeletePlanner}.
 */
public final class DeletionDao {
  private static final String COLUMNS = "deletion_id, entity_type, entity_id, state, deleted_at, "
      + "retention_expires_at, deleted_by, purge_requested, purge_job_id";
  private static final String D_COLUMNS = "d.deletion_id, d.entity_type, d.entity_id, d.state, d.deleted_at, "
      + "d.retention_expires_at, d.deleted_by, d.purge_requested, d.purge_job_id";
  /** A retained table row and its record, with the state of the attached cleanup job (if any). */
  private static final String RETAINED = "SELECT " + D_COLUMNS + ", t.namespace_id, t.name, j.state AS job_state "
      + "FROM lethe_entity_deletion d JOIN lethe_table t ON t.deletion_id = d.deletion_id "
      + "LEFT JOIN lethe_cleanup_job j ON j.job_id = d.purge_job_id ";

  /** Columns {@code snake_case} ↔ record components {@code camelCase}; written with {@code bindMethods}. */
  private static final RowMapper<DeletionRecord> ROWS = ConstructorMapper.of(DeletionRecord.class);

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public DeletionDao(Handle handle) {
    this.handle = handle;
  }

  /** Inserts a record (the drop transaction). */
  public void insert(DeletionRecord r) {
    handle.createUpdate("INSERT INTO lethe_entity_deletion (" + COLUMNS + ") VALUES (:deletionId, :entityType, "
            + ":entityId, :state, :deletedAt, :retentionExpiresAt, :deletedBy, :purgeRequested, :purgeJobId)")
        .bindMethods(r)
        .execute();
  }

  /** The record of that id, if any; no lock. */
  public Optional<DeletionRecord> find(String deletionId) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_entity_deletion WHERE deletion_id = :id")
        .bind("id", deletionId)
        .map(ROWS)
        .findOne();
  }

  /**
   * The record of that id, row-locked until the transaction ends ({@code SELECT … FOR UPDATE}): the
   * first lock of restore, purge claim and finalization (lock order: record, then table row).
   */
  public Optional<DeletionRecord> findForUpdate(String deletionId) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_entity_deletion WHERE deletion_id = :id FOR UPDATE")
        .bind("id", deletionId)
        .map(ROWS)
        .findOne();
  }

  /**
   * The record a cleanup job purges, row-locked until the transaction ends: an operator's abandon
   * finalizes it, a rescue restores its table (docs/design/0443-abandon-and-rescue.md).
   */
  public Optional<DeletionRecord> findByPurgeJobForUpdate(long purgeJobId) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_entity_deletion WHERE purge_job_id = :job FOR UPDATE")
        .bind("job", purgeJobId)
        .map(ROWS)
        .findOne();
  }

  /**
   * The purge claim's compare-and-set {@code DELETED → PURGING}, attaching the cleanup job.
   *
   * @return true if this call moved the record (it was {@code DELETED} with no job)
   */
  public boolean markPurging(String deletionId, long purgeJobId) {
    return handle.createUpdate("UPDATE lethe_entity_deletion SET state = 'PURGING', purge_job_id = :job "
            + "WHERE deletion_id = :id AND state = 'DELETED' AND purge_job_id IS NULL")
        .bind("job", purgeJobId)
        .bind("id", deletionId)
        .execute() == 1;
  }

  /**
   * Removes a record no purge has claimed ({@code DELETED}, no job): restore, and the metadata-only
   * finalization of a {@code purge_requested=false} record.
   *
   * @return true if removed
   */
  public boolean deleteUnclaimed(String deletionId) {
    return handle.createUpdate("DELETE FROM lethe_entity_deletion WHERE deletion_id = :id AND state = 'DELETED' "
            + "AND purge_job_id IS NULL")
        .bind("id", deletionId)
        .execute() == 1;
  }

  /**
   * Removes a claimed record: finalization after its job succeeded, predicated on the job id.
   *
   * @return true if removed
   */
  public boolean deletePurged(String deletionId, long purgeJobId) {
    return handle.createUpdate("DELETE FROM lethe_entity_deletion WHERE deletion_id = :id AND state = 'PURGING' "
            + "AND purge_job_id = :job")
        .bind("id", deletionId)
        .bind("job", purgeJobId)
        .execute() == 1;
  }

  /**
   * Ids of records whose deadline has passed ({@code DELETED}, no job, {@code retention_expires_at
   * <= now}: inclusive for purge), earliest deadline first. Read without locks: the claim re-checks
   * each under its row lock.
   *
   * @param limit most ids returned, at least 1
   */
  public List<String> expiredIds(long now, int limit) {
    // held tables are left out, so they never fill a batch and starve the others; read page by page
    // and filtered by the one rule of coverage (docs/design/0444-legal-holds.md)
    java.util.Map<String, List<HoldDao.Hold>> holds = new java.util.HashMap<>();
    List<String> out = new java.util.ArrayList<>();
    Long afterAt = null;
    String afterId = null;
    while (out.size() < limit) {
      Query q = handle.createQuery("SELECT d.deletion_id, d.retention_expires_at, n.catalog_id, n.name AS ns, t.name AS tname "
              + "FROM lethe_entity_deletion d LEFT JOIN lethe_table t ON t.table_id = d.entity_id "
              + "LEFT JOIN lethe_namespace n ON n.namespace_id = t.namespace_id WHERE d.state = 'DELETED' "
              + "AND d.purge_job_id IS NULL AND d.retention_expires_at <= :now"
              + (afterId == null ? "" : " AND (d.retention_expires_at > :at OR (d.retention_expires_at = :at "
                  + "AND d.deletion_id > :id))")
              + " ORDER BY d.retention_expires_at, d.deletion_id")
          .bind("now", now);
      if (afterId != null) {
        q.bind("at", afterAt).bind("id", afterId);
      }
      q.setMaxRows(limit);
      List<String[]> page = q.map((rs, ctx) -> new String[] {rs.getString("deletion_id"),
          Long.toString(rs.getLong("retention_expires_at")), rs.getString("catalog_id"), rs.getString("ns"),
          rs.getString("tname")}).list();
      for (String[] r : page) {
        boolean held = r[2] != null && holds.computeIfAbsent(r[2], c -> new HoldDao(handle).list(c, false)).stream()
            .anyMatch(h -> h.covers(r[3], r[4], now));
        if (!held && out.size() < limit) {
          out.add(r[0]);
        }
      }
      if (page.size() < limit) {
        break;
      }
      afterAt = Long.parseLong(page.get(page.size() - 1)[1]);
      afterId = page.get(page.size() - 1)[0];
    }
    return out;
  }

  /**
   * How many records past their deadline wait for a purge ({@code DELETED}, no job, {@code
   * retention_expires_at <= now}): those a legal hold covers at {@code now} ({@code held}) and the
   * others ({@code expired}), by the one rule of coverage (docs/design/0444-legal-holds.md). One
   * query over the records past their deadline, one per catalog for its holds.
   */
  public PastDeadline pastDeadline(long now) {
    java.util.Map<String, List<HoldDao.Hold>> holds = new java.util.HashMap<>();
    long[] counts = new long[2];
    handle.createQuery("SELECT n.catalog_id, n.name AS ns, t.name AS tname "
            + "FROM lethe_entity_deletion d LEFT JOIN lethe_table t ON t.table_id = d.entity_id "
            + "LEFT JOIN lethe_namespace n ON n.namespace_id = t.namespace_id WHERE d.state = 'DELETED' "
            + "AND d.purge_job_id IS NULL AND d.retention_expires_at <= :now")
        .bind("now", now)
        .map((rs, ctx) -> new String[] {rs.getString("catalog_id"), rs.getString("ns"), rs.getString("tname")})
        .forEach(r -> {
          boolean held = r[0] != null && holds.computeIfAbsent(r[0], c -> new HoldDao(handle).list(c, false)).stream()
              .anyMatch(h -> h.covers(r[1], r[2], now));
          counts[held ? 1 : 0]++;
        });
    return new PastDeadline(counts[0], counts[1]);
  }

  /** Records past their deadline without a job: waiting for the expiry timer, or kept by a hold. */
  public record PastDeadline(long expired, long held) {}

  /**
   * Claimed records whose cleanup job ended {@code SUCCEEDED}: the candidates of finalization. Read
   * without locks: finalization re-checks each under its row locks.
   *
   * @param limit most records returned, at least 1
   */
  public List<DeletionRecord> finalizable(int limit) {
    Query q = handle.createQuery("SELECT " + D_COLUMNS + " FROM lethe_entity_deletion d "
        + "JOIN lethe_cleanup_job j ON j.job_id = d.purge_job_id "
        + "WHERE d.state = 'PURGING' AND j.state = 'SUCCEEDED' ORDER BY d.deletion_id");
    q.setMaxRows(limit);
    return q.map(ROWS).list();
  }

  /** Retained tables of a namespace (recoverable or not), by name, with their job state. */
  public List<RetainedDeletion> listRetained(String namespaceId) {
    return handle.createQuery(RETAINED + "WHERE t.namespace_id = :ns ORDER BY t.name")
        .bind("ns", namespaceId)
        .map(RETAINED_ROWS)
        .list();
  }

  /**
   * One page of the retained tables of a namespace, by name (keyset:
   * docs/design/0403-keyset-catalog-listings.md); a namespace holds at most one retained row per name.
   *
   * @param after the previous page's last table name, or null for the first page
   * @param size the page size, at least 1
   */
  public KeysetPage<RetainedDeletion> listRetainedPage(String namespaceId, String after, int size) {
    Query q = handle.createQuery(RETAINED + "WHERE t.namespace_id = :ns" + (after == null ? "" : " AND t.name > :after")
            + " ORDER BY t.name LIMIT :n")
        .bind("ns", namespaceId)
        .bind("n", KeysetPage.fetchSize(size));
    if (after != null) {
      q.bind("after", after);
    }
    return KeysetPage.cut(q.map(RETAINED_ROWS).list(), size, RetainedDeletion::tableName);
  }

  /** The retained table of that name in the namespace, if any, with its job state. */
  public Optional<RetainedDeletion> findRetained(String namespaceId, String name) {
    return handle.createQuery(RETAINED + "WHERE t.namespace_id = :ns AND t.name = :name")
        .bind("ns", namespaceId)
        .bind("name", name)
        .map(RETAINED_ROWS)
        .findOne();
  }

  /**
   * How many retained (soft-deleted) tables a catalog has in all its namespaces, nested ones
   * included, and the earliest retention deadline among them: what the per-namespace listings
   * ({@link #listRetained}) show, added up in one aggregate query (docs/design/0450-catalog-summary.md).
   */
  public RetainedCount countRetained(String catalogId) {
    return handle.createQuery("SELECT COUNT(*) AS n, MIN(d.retention_expires_at) AS nearest "
            + "FROM lethe_entity_deletion d JOIN lethe_table t ON t.deletion_id = d.deletion_id "
            + "JOIN lethe_namespace n ON n.namespace_id = t.namespace_id WHERE n.catalog_id = :c")
        .bind("c", catalogId)
        .map((rs, ctx) -> {
          long count = rs.getLong("n");
          long nearest = rs.getLong("nearest");
          return new RetainedCount(count, rs.wasNull() ? null : nearest);
        })
        .one();
  }

  /**
   * A catalog's retained tables counted.
   *
   * @param count retained tables in every namespace
   * @param nearestDeadline the earliest {@code retention_expires_at} among them (ms since epoch), null when none
   */
  public record RetainedCount(long count, Long nearestDeadline) {}

  private static final RowMapper<RetainedDeletion> RETAINED_ROWS = (rs, ctx) -> {
    String job = rs.getString("job_state");
    return new RetainedDeletion(ROWS.map(rs, ctx), rs.getString("namespace_id"), rs.getString("name"),
        job == null ? null : CleanupJobState.valueOf(job));
  };
}
