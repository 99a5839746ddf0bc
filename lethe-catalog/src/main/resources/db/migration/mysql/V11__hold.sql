-- Legal holds (docs/design/0444-legal-holds.md): a table (live or soft-deleted) or a namespace of a
-- catalog whose files no purge may delete while the hold is active. Keyed by name, not by entry id,
-- so a namespace's hold covers tables created in it later and its child namespaces.
-- A row is kept after release as the audit of who placed and released it, when and why.
-- kind: TABLE or NAMESPACE; namespace: the levels joined by U+001F (for NAMESPACE the held
-- namespace itself); name: the table's name, '' for NAMESPACE; placed_at, expires_at, released_at:
-- ms since epoch (database clock); expires_at NULL: until released; released_at NULL: not released.
-- hold_key: hex SHA-256 of kind, namespace and name (the three together are too long for a MySQL
-- index key). Active holds: released_at IS NULL (and expires_at NULL or in the future).
CREATE TABLE lethe_hold (
  hold_id VARCHAR(36) NOT NULL,
  catalog_id VARCHAR(36) NOT NULL,
  hold_key VARCHAR(64) NOT NULL,
  kind VARCHAR(16) NOT NULL,
  namespace VARCHAR(512) NOT NULL,
  name VARCHAR(255) NOT NULL,
  placed_by VARCHAR(255) NOT NULL,
  placed_at BIGINT NOT NULL,
  reason VARCHAR(1024) NOT NULL,
  expires_at BIGINT,
  released_by VARCHAR(255),
  released_at BIGINT,
  CONSTRAINT pk_hold PRIMARY KEY (hold_id),
  CONSTRAINT fk_hold_catalog FOREIGN KEY (catalog_id) REFERENCES lethe_catalog (catalog_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX ix_hold_catalog ON lethe_hold (catalog_id, hold_key);
