-- An operator ends a job (docs/design/0443-abandon-and-rescue.md): abandon (state ABANDONED) or
-- rescue (state CANCELLED) keep who did it, when and why on the row.
-- ended_by: the admin principal's name; ended_at: ms since epoch on the database clock;
-- end_reason: the operator's text (at most 1024 characters; required for abandon, optional for rescue).
-- NULL on every job no operator ended.
ALTER TABLE lethe_cleanup_job ADD COLUMN ended_by VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
ALTER TABLE lethe_cleanup_job ADD COLUMN ended_at BIGINT;
ALTER TABLE lethe_cleanup_job ADD COLUMN end_reason VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
