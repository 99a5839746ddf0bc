-- Progress, ownership and receipts of cleanup jobs (docs/design/0445-job-progress-and-receipts.md).
-- lethe_cleanup_job: purge_path is how the purge was asked for (SYNC, ASYNC, EXPIRY, PURGE_NOW; NULL
-- for jobs older than this migration); phase is the phase running now; files/bytes_deleted count the
-- files gone so far (bytes of files of unknown size are not counted: bytes_unknown says how many, and
-- then bytes_deleted is a lower bound); progress is the JSON tally per kind, kept reasons and
-- leftovers; progress_checkpoint is that tally as of purged_through (a resumed run starts from it);
-- owner_host/owner_pid name the replica holding the lease (NULL when none); first_claimed_at is the
-- first claim, ms since epoch on the database clock.
ALTER TABLE lethe_cleanup_job ADD COLUMN purge_path VARCHAR(16), ADD COLUMN phase VARCHAR(32),
  ADD COLUMN files_deleted BIGINT NOT NULL DEFAULT 0, ADD COLUMN bytes_deleted BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN bytes_unknown BIGINT NOT NULL DEFAULT 0, ADD COLUMN progress MEDIUMTEXT, ADD COLUMN progress_checkpoint MEDIUMTEXT,
  ADD COLUMN owner_host VARCHAR(255), ADD COLUMN owner_pid BIGINT, ADD COLUMN first_claimed_at BIGINT;
-- One receipt per terminal transition of a job, written in the transaction of that transition; not
-- pruned with the job rows (no retention of its own). A job retried after FAILED ends again and gets
-- a second receipt: the newest is the job's receipt. detail is JSON (per-kind counts, kept reasons
-- with a bounded sample of paths, leftovers with a bounded sample). Times: ms since epoch.
CREATE TABLE lethe_cleanup_receipt (
  receipt_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_id BIGINT NOT NULL,
  object_type VARCHAR(16) NOT NULL,
  metalake_name VARCHAR(255) NOT NULL,
  catalog_id VARCHAR(36) NOT NULL,
  catalog_name VARCHAR(255) NOT NULL,
  namespace VARCHAR(512) NOT NULL,
  object_name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(2048) NOT NULL,
  state VARCHAR(16) NOT NULL,
  purge_path VARCHAR(16),
  created_by VARCHAR(255) NOT NULL,
  created_at BIGINT NOT NULL,
  first_claimed_at BIGINT,
  ended_at BIGINT NOT NULL,
  attempts INT NOT NULL,
  files_deleted BIGINT NOT NULL,
  bytes_deleted BIGINT NOT NULL,
  bytes_unknown BIGINT NOT NULL,
  kept_files BIGINT NOT NULL,
  last_error VARCHAR(2048),
  detail MEDIUMTEXT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX ix_cleanup_receipt_job ON lethe_cleanup_receipt (catalog_id, job_id);
