-- Issue 9 rules 1 and 4 (docs/design/0003-purge-sweep-and-kept-files.md): how many files a purge
-- found in the table's metadata outside the table's location and kept, and the last phase a run of
-- the job finished (a retry resumes after it, so files an earlier run deleted are not needed).
ALTER TABLE lethe_cleanup_job ADD COLUMN kept_files BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE lethe_cleanup_job ADD COLUMN purged_through VARCHAR(32);
