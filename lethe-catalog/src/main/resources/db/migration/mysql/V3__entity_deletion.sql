-- Deletion records of the soft deletion (DESIGN.md "Soft deletion"; soft deletion design §5.3).
-- One row per retained drop; times are ms since epoch on the database clock.
-- entity_id is the table_id of the retained lethe_table row; purge_job_id is the lethe_cleanup_job
-- that purges it (NULL while recoverable).
CREATE TABLE lethe_entity_deletion (
  deletion_id VARCHAR(36) NOT NULL PRIMARY KEY,
  entity_type VARCHAR(16) NOT NULL,
  entity_id VARCHAR(36) NOT NULL,
  state VARCHAR(16) NOT NULL,
  deleted_at BIGINT NOT NULL,
  retention_expires_at BIGINT NOT NULL,
  deleted_by VARCHAR(255) NOT NULL,
  purge_requested BOOLEAN NOT NULL,
  purge_job_id BIGINT
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX ix_entity_deletion_expiry ON lethe_entity_deletion (state, retention_expires_at);
CREATE INDEX ix_entity_deletion_job ON lethe_entity_deletion (purge_job_id);

-- The table row's pointer. No cascade: removing a record a row still points at fails, and removing a
-- row never removes its record (§5.3); restore clears the pointer first, finalization removes the row first.
ALTER TABLE lethe_table ADD CONSTRAINT fk_table_deletion FOREIGN KEY (deletion_id)
  REFERENCES lethe_entity_deletion (deletion_id);
