-- Lethe Store, JDBC substrate (docs/store-format.md "JDBC layout"; docs/design/0100-jdbc-store-substrate.md).
-- One row per record: the key columns, the columns a query filters on, and the record's JSON document
-- exactly as a file: store holds it. Key parts are 1-255 characters of [A-Za-z0-9._-]; ascii_nopad_bin
-- compares and orders them byte by byte with no trailing-space padding ('t ' and 't' are different keys,
-- which ascii_bin, a PAD SPACE collation, would treat as equal).
CREATE TABLE lethe_store_record (
  key_namespace VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  key_collection VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  key_id VARCHAR(255) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  kind VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  revision_counter BIGINT NOT NULL,
  revision_hash VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  deleted_at BIGINT NULL,
  record_json LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  PRIMARY KEY (key_namespace, key_collection, key_id)
) ENGINE=InnoDB;

-- Content-addressed blobs; stored_at (ms since the epoch) is refreshed by every put of the same content.
CREATE TABLE lethe_store_blob (
  blob_hash VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
  byte_length BIGINT NOT NULL,
  stored_at BIGINT NOT NULL,
  content LONGBLOB NOT NULL,
  PRIMARY KEY (blob_hash)
) ENGINE=InnoDB;
