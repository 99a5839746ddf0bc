package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.KeysetPage;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * SQL of table {@code lethe_cleanup_job}: the one place that reads or writes it (docs/design/0201-cleanup-jobs.md
 * §4–§7). Times ({@code now}) are ms since epoch on the {@link
 * DatabaseClock}; every state change is a guarded {@code UPDATE} whose row count tells the caller
 * whether it won.
 */
public final class CleanupJobDao {
  private static final String COLUMNS =
      "job_id, object_type, metalake_name, catalog_id, catalog_name, namespace, object_name, metadata_location, "
          + "file_io_impl, file_io_props, state, attempts, last_error, heartbeat_at, created_by, created_at, updated_at, "
          + "kept_files, purged_through, next_attempt_at, purge_path, phase, files_deleted, bytes_deleted, bytes_unknown, "
          + "progress, progress_checkpoint, owner_host, owner_pid, first_claimed_at, "
          + "ended_by, ended_at, end_reason";

  /**
   * A job any free worker may claim: pending and past its retry wait (docs/design/0050-retry-backoff.md), or running
   * with a stale (or no) heartbeat. {@code :now} and {@code :stale} are database-clock times.
   */
  private static final String CLAIMABLE =
      "((state = 'PENDING' AND (next_attempt_at IS NULL OR next_attempt_at <= :now)) "
          + "OR (state = 'RUNNING' AND (heartbeat_at IS NULL OR heartbeat_at < :stale)))";

  private final Handle handle;

  /** A DAO bound to one handle (and so to its transaction, if any). */
  public CleanupJobDao(Handle handle) {
    this.handle = handle;
  }

  /**
   * Inserts a {@code PENDING} job.
   *
   * @param now ms since epoch (database clock), stored as created and updated time
   * @return the new job id
   */
  public long insert(NewCleanupJob job, long now) {
    return insert(job, now, false);
  }

  /**
   * Inserts a job, {@code PENDING} or already claimed.
   *
   * @param now ms since epoch (database clock), stored as created and updated time, and as the
   *     heartbeat (the lease) of a claimed job
   * @param claimed true to insert it {@code RUNNING} with heartbeat {@code now}: owned by the
   *     inserting process from its first instant (the synchronous purge), reclaimable by any
   *     replica once that heartbeat goes stale
   * @return the new job id
   */
  public long insert(NewCleanupJob job, long now, boolean claimed) {
    return insert(job, now, claimed, claimed ? PurgePath.SYNC : PurgePath.ASYNC);
  }

  /**
   * Inserts a job, {@code PENDING} or already claimed by this process, recording how its purge was
   * asked for (docs/design/0445-job-progress-and-receipts.md).
   *
   * @param now ms since epoch (database clock): created and updated time; for a claimed job also
   *     its heartbeat and first claim, with this process ({@link WorkerIdentity#current()}) as owner
   * @param claimed true to insert it {@code RUNNING}, owned by this process
   * @param path how the purge was asked for, not null
   * @return the new job id
   */
  public long insert(NewCleanupJob job, long now, boolean claimed, PurgePath path) {
    WorkerIdentity me = WorkerIdentity.current();
    return handle
        .createUpdate("INSERT INTO lethe_cleanup_job (object_type, metalake_name, catalog_id, catalog_name, namespace, "
            + "object_name, metadata_location, file_io_impl, file_io_props, state, attempts, last_error, heartbeat_at, "
            + "created_by, created_at, updated_at, purge_path, owner_host, owner_pid, first_claimed_at) "
            + "VALUES (:objectType, :metalakeName, :catalogId, :catalogName, :namespace, "
            + ":objectName, :metadataLocation, :fileIoImpl, :encryptedFileIoProperties, :state, 0, NULL, :heartbeat, "
            + ":createdBy, :now, :now, :path, :host, :pid, :heartbeat)")
        .bindMethods(job)
        .bind("state", claimed ? CleanupJobState.RUNNING.name() : CleanupJobState.PENDING.name())
        .bind("heartbeat", claimed ? Long.valueOf(now) : null)
        .bind("path", path.name())
        .bind("host", claimed ? me.host() : null)
        .bind("pid", claimed ? Long.valueOf(me.pid()) : null)
        .bind("now", now)
        .executeAndReturnGeneratedKeys("job_id")
        .mapTo(Long.class)
        .one();
  }

  /** The job of that id, if it exists. */
  public Optional<CleanupJob> find(long jobId) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_cleanup_job WHERE job_id = :id")
        .bind("id", jobId)
        .map(ROWS)
        .findOne();
  }

  /**
   * The oldest active ({@code PENDING}/{@code RUNNING}) job of an object: the tombstone that keeps
   * its name (docs/design/0201-cleanup-jobs.md §7). One indexed lookup.
   *
   * @param namespace levels joined by U+001F
   */
  public Optional<CleanupJob> findActive(String catalogId, String namespace, String objectName) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_cleanup_job WHERE catalog_id = :c AND namespace = :ns "
            + "AND object_name = :name AND state IN ('PENDING', 'RUNNING') ORDER BY job_id")
        .bind("c", catalogId)
        .bind("ns", namespace)
        .bind("name", objectName)
        .map(ROWS)
        .findFirst();
  }

  /** The catalog's {@code RUNNING} jobs of that kind (one indexed query on catalog and state). */
  public List<CleanupJob> running(String catalogId, CleanupObjectType type) {
    return handle.createQuery("SELECT " + COLUMNS + " FROM lethe_cleanup_job WHERE catalog_id = :c AND state = 'RUNNING' "
            + "AND object_type = :t ORDER BY job_id")
        .bind("c", catalogId)
        .bind("t", type.name())
        .map(ROWS)
        .list();
  }

  /**
   * The newest jobs of a catalog, newest first, optionally filtered: the first page of {@link
   * #list(String, String, String, CleanupJobState, Long, int)}.
   *
   * @param limit most rows returned, at least 1
   */
  public List<CleanupJob> list(String catalogId, String namespace, String objectName, CleanupJobState state, int limit) {
    return list(catalogId, namespace, objectName, state, null, limit).items();
  }

  /**
   * One page of the jobs of a catalog, newest first (job id descending: ids grow with every insert),
   * optionally filtered; keyset on the job id (docs/design/0403-keyset-catalog-listings.md).
   *
   * @param namespace levels joined by U+001F, or null for any
   * @param objectName exact name, or null for any
   * @param state or null for any
   * @param before the previous page's last job id (this page holds older jobs), or null for the first page
   * @param size the page size, at least 1
   * @return the page; its cursor is a job id in decimal
   */
  public KeysetPage<CleanupJob> list(String catalogId, String namespace, String objectName, CleanupJobState state,
      Long before, int size) {
    // each filter given adds its condition and its one bound value
    Map<String, Object> filters = new LinkedHashMap<>();
    filters.put(" AND namespace = :ns", namespace);
    filters.put(" AND object_name = :name", objectName);
    filters.put(" AND state = :state", state == null ? null : state.name());
    filters.put(" AND job_id < :before", before);
    StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM lethe_cleanup_job WHERE catalog_id = :c");
    Map<String, Object> values = new LinkedHashMap<>();
    filters.forEach((condition, value) -> {
      if (value != null) {
        sql.append(condition);
        values.put(condition.substring(condition.indexOf(':') + 1), value);
      }
    });
    sql.append(" ORDER BY job_id DESC LIMIT :n");
    Query q = handle.createQuery(sql.toString()).bind("c", catalogId).bind("n", KeysetPage.fetchSize(size)).bindMap(values);
    return KeysetPage.cut(q.map(ROWS).list(), size, job -> Long.toString(job.jobId()));
  }

  /**
   * Ids of claimable jobs, oldest change first: the candidate window of the portable claim.
   *
   * @param now the database clock now: jobs whose retry wait has not passed are skipped
   * @param stale heartbeats older than this (ms since epoch) are abandoned
   * @param window most ids returned
   */
  public List<Long> claimCandidates(long now, long stale, int window) {
    Query q = handle.createQuery("SELECT job_id FROM lethe_cleanup_job WHERE " + CLAIMABLE + " ORDER BY updated_at, job_id")
        .bind("now", now)
        .bind("stale", stale);
    q.setMaxRows(window);
    return q.mapTo(Long.class).list();
  }

  /**
   * The first claimable job, row-locked and skipping rows other transactions hold ({@code FOR
   * UPDATE SKIP LOCKED}); call inside a transaction. PostgreSQL and MariaDB 10.6+ only.
   */
  public Optional<Long> lockFirstClaimable(long now, long stale) {
    return handle.createQuery("SELECT job_id FROM lethe_cleanup_job WHERE " + CLAIMABLE
            + " ORDER BY updated_at, job_id LIMIT 1 FOR UPDATE SKIP LOCKED")
        .bind("now", now)
        .bind("stale", stale)
        .mapTo(Long.class)
        .findOne();
  }

  /**
   * Locks the job's row ({@code FOR UPDATE}, waiting) if it is claimable: the compare-and-set
   * claimer's row lock before its hold check (docs/design/0444-legal-holds.md).
   *
   * @return whether it is claimable (and now locked)
   */
  public boolean lockIfClaimable(long jobId, long now, long stale) {
    return handle.createQuery("SELECT job_id FROM lethe_cleanup_job WHERE job_id = :id AND " + CLAIMABLE + " FOR UPDATE")
        .bind("id", jobId)
        .bind("now", now)
        .bind("stale", stale)
        .mapTo(Long.class)
        .findOne()
        .isPresent();
  }

  /**
   * Claims a job if it is still claimable: the compare-and-set of docs/design/0201-cleanup-jobs.md §5.
   *
   * @param now the heartbeat written, which seeds the claimer's lease; also the time a retry wait
   *     must have passed
   * @param stale heartbeats older than this are abandoned
   * @return true if this call claimed it
   */
  public boolean claim(long jobId, long now, long stale) {
    return claim(jobId, now, stale, WorkerIdentity.current());
  }

  /**
   * Claims a job if it is still claimable, naming the claiming replica on the row
   * (docs/design/0445-job-progress-and-receipts.md); the first claim's time is kept.
   *
   * @param owner the replica taking the lease
   * @return true if this call claimed it
   */
  public boolean claim(long jobId, long now, long stale, WorkerIdentity owner) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET state = 'RUNNING', heartbeat_at = :now, updated_at = :now, "
            + "next_attempt_at = NULL, owner_host = :host, owner_pid = :pid, "
            + "first_claimed_at = COALESCE(first_claimed_at, :now) WHERE job_id = :id AND " + CLAIMABLE)
        .bind("host", owner.host())
        .bind("pid", owner.pid())
        .bind("now", now)
        .bind("stale", stale)
        .bind("id", jobId)
        .execute() == 1;
  }

  /**
   * Leaves a claimable job {@code PENDING} because a legal hold covers its table
   * (docs/design/0444-legal-holds.md): no attempt used, heartbeat cleared, claimable again at {@code
   * now + waitMs}, {@code last_error} naming the hold. Guarded like {@link #claim}.
   *
   * @return true if this call changed the row
   */
  public boolean deferHeld(long jobId, long now, long stale, long waitMs, String reason) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET state = 'PENDING', heartbeat_at = NULL, "
            + "next_attempt_at = :next, last_error = :reason WHERE job_id = :id AND " + CLAIMABLE)
        .bind("next", now + waitMs)
        .bind("reason", PurgeTransition.truncate(reason))
        .bind("now", now)
        .bind("stale", stale)
        .bind("id", jobId)
        .execute() == 1;
  }

  /**
   * Makes the catalog's {@code PENDING} jobs that wait for a legal hold claimable at once (after a
   * release; a job still covered waits again at its claim).
   *
   * @return rows changed
   */
  public int wakeHeld(String catalogId, long now) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET next_attempt_at = NULL WHERE catalog_id = :c "
            + "AND state = 'PENDING' AND next_attempt_at > :now AND last_error LIKE :held")
        .bind("c", catalogId)
        .bind("now", now)
        .bind("held", "waiting for legal hold %")
        .execute();
  }

  /**
   * Renews a lease: writes {@code now} only if the heartbeat is still the value this owner last
   * wrote.
   *
   * @return true if still owned (the new value is now the lease), false if the lease is lost
   */
  public boolean renewHeartbeat(long jobId, long lastWritten, long now) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET heartbeat_at = :now "
            + "WHERE job_id = :id AND state = 'RUNNING' AND heartbeat_at = :last")
        .bind("now", now)
        .bind("id", jobId)
        .bind("last", lastWritten)
        .execute() == 1;
  }

  /**
   * Applies a {@link PurgeTransition} if this owner still holds the lease; a {@code PENDING} write
   * with a retry wait sets {@code next_attempt_at = now + wait}.
   *
   * @param lease the heartbeat value the owner last wrote
   * @return true if applied, false if the lease was lost (nothing changed)
   */
  public boolean finish(long jobId, long lease, PurgeTransition.Write write, long now) {
    Long next = write.state() == CleanupJobState.PENDING && write.retryDelayMs() > 0 ? now + write.retryDelayMs() : null;
    return handle.createUpdate("UPDATE lethe_cleanup_job SET state = :state, attempts = :attempts, last_error = :lastError, "
            + "heartbeat_at = NULL, updated_at = :now, next_attempt_at = :next, owner_host = NULL, owner_pid = NULL, "
            + "phase = NULL WHERE job_id = :id AND state = 'RUNNING' AND heartbeat_at = :lease")
        .bind("next", next)
        .bindMethods(write)
        .bind("now", now)
        .bind("id", jobId)
        .bind("lease", lease)
        .execute() == 1;
  }

  /**
   * Records a running job's progress if this owner still holds the lease: the last phase its run
   * finished and the files it kept so far (docs/design/0003-purge-sweep-and-kept-files.md §3).
   *
   * @param lease the heartbeat value the owner last wrote
   * @param purgedThrough the phase just finished, not null
   * @param keptFiles files kept so far, at least 0
   * @return true if written, false if the lease was lost (nothing changed)
   */
  public boolean recordProgress(long jobId, long lease, PurgePhase purgedThrough, long keptFiles) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET purged_through = :phase, kept_files = :kept "
            + "WHERE job_id = :id AND state = 'RUNNING' AND heartbeat_at = :lease")
        .bind("phase", purgedThrough.name())
        .bind("kept", keptFiles)
        .bind("id", jobId)
        .bind("lease", lease)
        .execute() == 1;
  }

  /**
   * Records a finished phase with the tally as of its end, which is also the checkpoint a resumed
   * run starts from (docs/design/0445-job-progress-and-receipts.md).
   *
   * @param lease the heartbeat value the owner last wrote
   * @return true if written, false if the lease was lost (nothing changed)
   */
  public boolean recordProgress(long jobId, long lease, PurgePhase purgedThrough, long keptFiles, JobProgress tally) {
    String json = tally.toJson();
    return handle.createUpdate("UPDATE lethe_cleanup_job SET purged_through = :phase, kept_files = :kept, "
            + "files_deleted = :files, bytes_deleted = :bytes, bytes_unknown = :unknown, progress = :json, "
            + "progress_checkpoint = :json WHERE job_id = :id AND state = 'RUNNING' AND heartbeat_at = :lease")
        .bind("phase", purgedThrough.name())
        .bind("kept", keptFiles)
        .bind("files", tally.files())
        .bind("bytes", tally.bytes())
        .bind("unknown", tally.unknownSizes())
        .bind("json", json)
        .bind("id", jobId)
        .bind("lease", lease)
        .execute() == 1;
  }

  /**
   * Writes a running job's live progress if this owner still holds the lease: the phase running and
   * the tally so far (docs/design/0445-job-progress-and-receipts.md). A worker whose lease another
   * replica took writes nothing.
   *
   * @param lease the heartbeat value the owner last wrote
   * @param phase the phase running now, not null
   * @return true if written, false if the lease was lost (nothing changed)
   */
  public boolean writeProgress(long jobId, long lease, String phase, JobProgress tally) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET phase = :phase, files_deleted = :files, "
            + "bytes_deleted = :bytes, bytes_unknown = :unknown, progress = :json "
            + "WHERE job_id = :id AND state = 'RUNNING' AND heartbeat_at = :lease")
        .bind("phase", phase)
        .bind("files", tally.files())
        .bind("bytes", tally.bytes())
        .bind("unknown", tally.unknownSizes())
        .bind("json", tally.toJson())
        .bind("id", jobId)
        .bind("lease", lease)
        .execute() == 1;
  }

  /**
   * An operator's retry (docs/design/0440-job-control.md): puts a {@code FAILED} job of the catalog
   * back to {@code PENDING}, claimable at once, with no attempt used. The guard {@code state =
   * 'FAILED'} makes it one compare-and-set: of two concurrent retries exactly one changes the row.
   * The last error and the phase the job purged through are kept (a retry resumes after it).
   *
   * @param now ms since epoch (database clock), the new updated time
   * @return true if this call moved the job, false if it is not a FAILED job of that catalog
   */
  public boolean retryFailed(String catalogId, long jobId, long now) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET state = 'PENDING', attempts = 0, heartbeat_at = NULL, "
            + "next_attempt_at = NULL, updated_at = :now WHERE job_id = :id AND catalog_id = :c AND state = 'FAILED'")
        .bind("now", now)
        .bind("id", jobId)
        .bind("c", catalogId)
        .execute() == 1;
  }

  /**
   * An operator's run-now (docs/design/0440-job-control.md): a {@code PENDING} job of the catalog
   * waiting out its retry backoff becomes claimable at {@code now}. A job already claimable is not
   * changed.
   *
   * @param now ms since epoch (database clock), the new earliest attempt; the updated time (the
   *     claim order) is kept: no state changes
   * @return true if this call shortened a wait, false if the job is not PENDING, not of that catalog,
   *     or not waiting
   */
  public boolean runPendingNow(String catalogId, long jobId, long now) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET next_attempt_at = :now "
            + "WHERE job_id = :id AND catalog_id = :c AND state = 'PENDING' AND next_attempt_at > :now")
        .bind("now", now)
        .bind("id", jobId)
        .bind("c", catalogId)
        .execute() == 1;
  }

  /**
   * An operator's abandon (docs/design/0443-abandon-and-rescue.md): a {@code FAILED} job of the
   * catalog ends {@code ABANDONED} with who, when and why. The guard {@code state = 'FAILED'} makes it
   * one compare-and-set.
   *
   * @param endedBy the admin principal's name
   * @param reason the operator's reason, not blank, at most {@link CleanupJob#MAX_END_REASON} characters
   * @param now ms since epoch (database clock), stored as ended and updated time
   * @return true if this call ended the job
   */
  public boolean abandonFailed(String catalogId, long jobId, String endedBy, String reason, long now) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET state = 'ABANDONED', ended_by = :by, ended_at = :now, "
            + "end_reason = :reason, updated_at = :now WHERE job_id = :id AND catalog_id = :c AND state = 'FAILED'")
        .bind("by", endedBy)
        .bind("reason", reason)
        .bind("now", now)
        .bind("id", jobId)
        .bind("c", catalogId)
        .execute() == 1;
  }

  /**
   * An operator's rescue (docs/design/0443-abandon-and-rescue.md): a {@code PENDING} or {@code FAILED}
   * job of the catalog ends {@code CANCELLED} with who, when and why, if it is still exactly as the
   * rescue saw it when it checked the files ({@code state} and {@code updated_at} unchanged). Every claim,
   * finished attempt and retry writes {@code updated_at}, so a worker that claimed the job since makes
   * this update change nothing, and a claim after it finds the job not claimable.
   *
   * @param seen the job as read before the file check
   * @param endedBy the admin principal's name
   * @param reason the operator's reason, or null
   * @param now ms since epoch (database clock), stored as ended and updated time
   * @return true if this call cancelled the job
   */
  public boolean cancelUnchanged(CleanupJob seen, String endedBy, String reason, long now) {
    return handle.createUpdate("UPDATE lethe_cleanup_job SET state = 'CANCELLED', heartbeat_at = NULL, "
            + "next_attempt_at = NULL, ended_by = :by, ended_at = :now, end_reason = :reason, updated_at = :now "
            + "WHERE job_id = :id AND catalog_id = :c AND state IN ('PENDING', 'FAILED') AND state = :seenState "
            + "AND updated_at = :seenUpdated")
        .bind("by", endedBy)
        .bind("reason", reason)
        .bind("now", now)
        .bind("id", seen.jobId())
        .bind("c", seen.catalogId())
        .bind("seenState", seen.state().name())
        .bind("seenUpdated", seen.updatedAt())
        .execute() == 1;
  }

  /**
   * Deletes ended ({@code SUCCEEDED}/{@code CANCELLED}/{@code ABANDONED}) rows last changed before
   * {@code before} (ms since epoch). A {@code FAILED} job is never pruned: it holds its location claims
   * until an operator retries, abandons or rescues it (docs/design/0446-a-failed-job-keeps-its-locations.md).
   * A job a soft deletion record still points at is kept: its {@code SUCCEEDED} state is what
   * finalization waits for (docs/design/0202-soft-deletion.md §6).
   *
   * @return rows deleted
   */
  public int pruneTerminal(long before) {
    return handle.createUpdate("DELETE FROM lethe_cleanup_job WHERE state IN ('SUCCEEDED', 'CANCELLED', 'ABANDONED') "
            + "AND updated_at < :before AND NOT EXISTS (SELECT 1 FROM lethe_entity_deletion d "
            + "WHERE d.purge_job_id = lethe_cleanup_job.job_id)")
        .bind("before", before)
        .execute();
  }

  /** Number of jobs per state; every state present (0 when none). */
  public Map<CleanupJobState, Long> countByState() {
    Map<CleanupJobState, Long> counts = new EnumMap<>(CleanupJobState.class);
    for (CleanupJobState s : CleanupJobState.values()) {
      counts.put(s, 0L);
    }
    handle.createQuery("SELECT state, COUNT(*) AS n FROM lethe_cleanup_job GROUP BY state")
        .map((rs, ctx) -> Map.entry(CleanupJobState.valueOf(rs.getString("state")), rs.getLong("n")))
        .forEach(e -> counts.put(e.getKey(), e.getValue()));
    return counts;
  }

  /** Creation time (ms since epoch) of the oldest {@code PENDING} job, if any. */
  public OptionalLong oldestPendingCreatedAt() {
    Long v = handle.createQuery("SELECT MIN(created_at) FROM lethe_cleanup_job WHERE state = 'PENDING'")
        .mapTo(Long.class)
        .one();
    return v == null ? OptionalLong.empty() : OptionalLong.of(v);
  }

  /**
   * Number of a catalog's jobs per state, every state present (0 when none): one {@code GROUP BY}
   * on the catalog's rows (docs/design/0450-catalog-summary.md).
   */
  public Map<CleanupJobState, Long> countByState(String catalogId) {
    Map<CleanupJobState, Long> counts = new EnumMap<>(CleanupJobState.class);
    for (CleanupJobState s : CleanupJobState.values()) {
      counts.put(s, 0L);
    }
    handle.createQuery("SELECT state, COUNT(*) AS n FROM lethe_cleanup_job WHERE catalog_id = :c GROUP BY state")
        .bind("c", catalogId)
        .map((rs, ctx) -> Map.entry(CleanupJobState.valueOf(rs.getString("state")), rs.getLong("n")))
        .forEach(e -> counts.put(e.getKey(), e.getValue()));
    return counts;
  }

  /** Creation time (ms since epoch) of a catalog's oldest {@code PENDING} job, if any. */
  public OptionalLong oldestPendingCreatedAt(String catalogId) {
    Long v = handle.createQuery("SELECT MIN(created_at) FROM lethe_cleanup_job WHERE catalog_id = :c AND state = 'PENDING'")
        .bind("c", catalogId)
        .mapTo(Long.class)
        .one();
    return v == null ? OptionalLong.empty() : OptionalLong.of(v);
  }

  /** A job row; {@code file_io_props} is the record's {@code encryptedFileIoProperties}, and two times may be NULL. */
  private static final RowMapper<CleanupJob> ROWS = (rs, ctx) -> {
    long hb = rs.getLong("heartbeat_at");
    Long heartbeat = rs.wasNull() ? null : hb;
    long na = rs.getLong("next_attempt_at");
    Long nextAttempt = rs.wasNull() ? null : na;
    long ea = rs.getLong("ended_at");
    Long endedAt = rs.wasNull() ? null : ea;
    return new CleanupJob(
        rs.getLong("job_id"),
        CleanupObjectType.valueOf(rs.getString("object_type")),
        rs.getString("metalake_name"),
        rs.getString("catalog_id"),
        rs.getString("catalog_name"),
        rs.getString("namespace"),
        rs.getString("object_name"),
        rs.getString("metadata_location"),
        rs.getString("file_io_impl"),
        rs.getString("file_io_props"),
        CleanupJobState.valueOf(rs.getString("state")),
        rs.getInt("attempts"),
        rs.getString("last_error"),
        heartbeat,
        rs.getString("created_by"),
        rs.getLong("created_at"),
        rs.getLong("updated_at"),
        rs.getLong("kept_files"),
        rs.getString("purged_through") == null ? null : PurgePhase.valueOf(rs.getString("purged_through")),
        nextAttempt,
        activity(rs),
        rs.getString("ended_by"),
        endedAt,
        rs.getString("end_reason"));
  };

  private static JobActivity activity(java.sql.ResultSet rs) throws java.sql.SQLException {
    long pid = rs.getLong("owner_pid");
    Long ownerPid = rs.wasNull() ? null : pid;
    long fc = rs.getLong("first_claimed_at");
    Long firstClaimed = rs.wasNull() ? null : fc;
    String path = rs.getString("purge_path");
    return new JobActivity(path == null ? null : PurgePath.valueOf(path), rs.getString("phase"),
        rs.getLong("files_deleted"), rs.getLong("bytes_deleted"), rs.getLong("bytes_unknown"), rs.getString("progress"),
        rs.getString("progress_checkpoint"), rs.getString("owner_host"), ownerPid, firstClaimed);
  }
}
