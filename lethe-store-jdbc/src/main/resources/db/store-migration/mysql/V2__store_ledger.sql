-- Lethe Store ledger (docs/design/0150-store-identity-and-peers.md, docs/design/0151-purge-log.md):
-- what a store remembers about itself, never synced. lethe_store_meta holds the store id and the
-- last collect cutoff; lethe_store_peer one row per store this one completed a sync with;
-- lethe_store_purge_log one row per tombstone removed, without its body (entry_json is the
-- compact entry of docs/design/0151-purge-log.md "Encoding").
CREATE TABLE lethe_store_meta (
  meta_name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  meta_value VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  CONSTRAINT pk_lethe_store_meta PRIMARY KEY (meta_name)
) ENGINE=InnoDB;

CREATE TABLE lethe_store_peer (
  peer_id VARCHAR(36) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  uri TEXT CHARACTER SET utf8mb4 NOT NULL,
  last_sync BIGINT NOT NULL,
  collect_cutoff BIGINT,
  clock_offset BIGINT NOT NULL,
  CONSTRAINT pk_lethe_store_peer PRIMARY KEY (peer_id)
) ENGINE=InnoDB;

CREATE TABLE lethe_store_purge_log (
  seq BIGINT NOT NULL AUTO_INCREMENT,
  key_namespace VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  key_collection VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  key_id VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  purged_at BIGINT NOT NULL,
  entry_json TEXT CHARACTER SET ascii NOT NULL,
  CONSTRAINT pk_lethe_store_purge_log PRIMARY KEY (seq)
) ENGINE=InnoDB;
CREATE INDEX ix_lethe_store_purge_log_key ON lethe_store_purge_log (key_namespace, key_collection, key_id);
CREATE INDEX ix_lethe_store_purge_log_purged ON lethe_store_purge_log (purged_at);
