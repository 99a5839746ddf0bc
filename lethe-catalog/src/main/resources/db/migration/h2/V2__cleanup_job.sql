-- Cleanup jobs of the asynchronous purge (DESIGN.md "Cleanup jobs"; async design §5.4).
-- Times are ms since epoch taken from the database clock. file_io_props is AES-GCM encrypted.
CREATE TABLE lethe_cleanup_job (
  job_id BIGINT AUTO_INCREMENT PRIMARY KEY,
  object_type VARCHAR(16) NOT NULL,
  metalake_name VARCHAR(255) NOT NULL,
  catalog_id VARCHAR(36) NOT NULL,
  catalog_name VARCHAR(255) NOT NULL,
  namespace VARCHAR(512) NOT NULL,
  object_name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(2048) NOT NULL,
  file_io_impl VARCHAR(256) NOT NULL,
  file_io_props TEXT NOT NULL,
  state VARCHAR(16) NOT NULL,
  attempts INT DEFAULT 0 NOT NULL,
  last_error VARCHAR(2048),
  heartbeat_at BIGINT,
  created_by VARCHAR(255) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX ix_cleanup_job_state ON lethe_cleanup_job (state, updated_at);
CREATE INDEX ix_cleanup_job_object ON lethe_cleanup_job (catalog_id, namespace, object_name, state);
