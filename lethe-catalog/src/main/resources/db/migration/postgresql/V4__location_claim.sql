-- Location claims: one live owner per location (issue 9 rule 2; docs/design/0001-purge-confinement-and-ownership.md §3).
-- One row per owned root of an entry that can become live: a table (live or retained), a view (its
-- metadata file) or a PENDING/RUNNING cleanup job. root is LocationPath's canonical string; root_hash
-- its SHA-256 hex. lethe_location_claim_prefix holds one row per ancestor-or-self of each root
-- (prefix_hash = SHA-256 of that ancestor), so "which claims does a new root contain" is an index
-- lookup on every vendor (a 4096-character root cannot be indexed whole on MariaDB).
CREATE TABLE lethe_location_claim (
  claim_id BIGSERIAL PRIMARY KEY,
  owner_kind VARCHAR(8) NOT NULL,
  owner_id VARCHAR(36) NOT NULL,
  root VARCHAR(4096) NOT NULL,
  root_hash CHAR(64) NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX ix_location_claim_owner ON lethe_location_claim (owner_kind, owner_id);
CREATE INDEX ix_location_claim_root ON lethe_location_claim (root_hash);

CREATE TABLE lethe_location_claim_prefix (
  prefix_hash CHAR(64) NOT NULL,
  claim_id BIGINT NOT NULL,
  PRIMARY KEY (prefix_hash, claim_id),
  CONSTRAINT fk_location_claim_prefix FOREIGN KEY (claim_id) REFERENCES lethe_location_claim (claim_id) ON DELETE CASCADE
);
CREATE INDEX ix_location_claim_prefix_claim ON lethe_location_claim_prefix (claim_id);

-- The one row every claim change locks (SELECT ... FOR UPDATE), last, after any namespace, table or
-- deletion record lock, so two transactions never both pass the overlap check.
CREATE TABLE lethe_location_lock (
  lock_id INT NOT NULL PRIMARY KEY
);
INSERT INTO lethe_location_lock (lock_id) VALUES (1);
