-- Lethe catalog entities (DESIGN.md "Catalog / Entities and storage").
-- Ids are UUID strings; times are ms since epoch.
CREATE TABLE lethe_metalake (
  metalake_id VARCHAR(36) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT uq_metalake_name UNIQUE (name)
);

CREATE TABLE lethe_catalog (
  catalog_id VARCHAR(36) NOT NULL PRIMARY KEY,
  metalake_id VARCHAR(36) NOT NULL,
  name VARCHAR(255) NOT NULL,
  warehouse VARCHAR(2048) NOT NULL,
  properties VARCHAR(1000000) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT uq_catalog_name UNIQUE (metalake_id, name),
  CONSTRAINT fk_catalog_metalake FOREIGN KEY (metalake_id) REFERENCES lethe_metalake (metalake_id)
);

-- name: the namespace levels joined by U+001F; parent_name: the same for the parent ('' at the top).
CREATE TABLE lethe_namespace (
  namespace_id VARCHAR(36) NOT NULL PRIMARY KEY,
  catalog_id VARCHAR(36) NOT NULL,
  name VARCHAR(512) NOT NULL,
  parent_name VARCHAR(512) NOT NULL,
  properties VARCHAR(1000000) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT uq_namespace_name UNIQUE (catalog_id, name),
  CONSTRAINT fk_namespace_catalog FOREIGN KEY (catalog_id) REFERENCES lethe_catalog (catalog_id)
);
CREATE INDEX ix_namespace_parent ON lethe_namespace (catalog_id, parent_name);

-- A table is deleted when deleted_at <> 0 OR deletion_id IS NOT NULL; live rows have deleted_at = 0,
-- so the unique key leaves room for deleted rows of the same name.
CREATE TABLE lethe_table (
  table_id VARCHAR(36) NOT NULL PRIMARY KEY,
  catalog_id VARCHAR(36) NOT NULL,
  namespace_id VARCHAR(36) NOT NULL,
  name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(2048) NOT NULL,
  previous_metadata_location VARCHAR(2048),
  deleted_at BIGINT DEFAULT 0 NOT NULL,
  deletion_id VARCHAR(36),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT uq_table_name UNIQUE (namespace_id, name, deleted_at),
  CONSTRAINT uq_table_deletion UNIQUE (deletion_id),
  CONSTRAINT fk_table_catalog FOREIGN KEY (catalog_id) REFERENCES lethe_catalog (catalog_id)
);

CREATE TABLE lethe_view (
  view_id VARCHAR(36) NOT NULL PRIMARY KEY,
  catalog_id VARCHAR(36) NOT NULL,
  namespace_id VARCHAR(36) NOT NULL,
  name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(2048) NOT NULL,
  previous_metadata_location VARCHAR(2048),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT uq_view_name UNIQUE (namespace_id, name),
  CONSTRAINT fk_view_catalog FOREIGN KEY (catalog_id) REFERENCES lethe_catalog (catalog_id)
);
