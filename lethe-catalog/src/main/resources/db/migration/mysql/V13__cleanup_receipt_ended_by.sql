-- Who ended a job and why, on its receipt (docs/design/0445-job-progress-and-receipts.md): copied
-- from the job row (V10) when the receipt is written, so an abandon or a rescue stays told after the
-- row is pruned. ended_by: the admin principal's name; end_reason: the operator's text (at most 1024
-- characters). NULL on receipts of jobs no operator ended, and on receipts written before this.
ALTER TABLE lethe_cleanup_receipt ADD COLUMN ended_by VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
ALTER TABLE lethe_cleanup_receipt ADD COLUMN end_reason VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
