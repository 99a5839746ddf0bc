-- Lethe Store, JDBC substrate (docs/store-format.md "JDBC layout"; docs/design/0100-jdbc-store-substrate.md).
-- One row per record: the key columns, the columns a query filters on, and the record's JSON document
-- exactly as a file: store holds it. Key parts are 1-255 characters of [A-Za-z0-9._-], compared and
-- ordered byte by byte (H2 compares VARCHAR values as Java strings, which for ASCII is byte order).
CREATE TABLE lethe_store_record (
  key_namespace VARCHAR(255) NOT NULL,
  key_collection VARCHAR(255) NOT NULL,
  key_id VARCHAR(255) NOT NULL,
  kind VARCHAR(64) NOT NULL,
  revision_counter BIGINT NOT NULL,
  revision_hash VARCHAR(64) NOT NULL,
  deleted_at BIGINT,
  record_json CLOB NOT NULL,
  CONSTRAINT pk_lethe_store_record PRIMARY KEY (key_namespace, key_collection, key_id)
);

-- Content-addressed blobs; stored_at (ms since the epoch) is refreshed by every put of the same content.
CREATE TABLE lethe_store_blob (
  blob_hash VARCHAR(64) NOT NULL,
  byte_length BIGINT NOT NULL,
  stored_at BIGINT NOT NULL,
  content BLOB NOT NULL,
  CONSTRAINT pk_lethe_store_blob PRIMARY KEY (blob_hash)
);
