-- Retries wait (issue 9 rule 5; docs/design/0050-retry-backoff.md): a job sent back to PENDING
-- after a failed attempt is not claimable before next_attempt_at (ms since epoch, database clock).
-- NULL: claimable at once (new jobs, jobs handed back by a stopping server).
ALTER TABLE lethe_cleanup_job ADD COLUMN next_attempt_at BIGINT;
