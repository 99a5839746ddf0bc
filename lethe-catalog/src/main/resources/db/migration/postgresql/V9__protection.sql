-- Drop protection (docs/design/0441-drop-protection.md): a table, view or namespace of a catalog
-- that no drop, rename away or namespace drop may remove while the row exists. Keyed by name, not
-- by entry id, so a namespace's protection covers entries created in it later.
-- kind: TABLE, VIEW or NAMESPACE; namespace: the levels joined by U+001F (for NAMESPACE the
-- protected namespace itself); name: the entry's name, '' for NAMESPACE; set_at: ms since epoch.
-- protection_key: hex SHA-256 of kind, namespace and name (the three together are too long for a
-- MySQL index key).
CREATE TABLE lethe_protection (
  protection_key VARCHAR(64) NOT NULL,
  catalog_id VARCHAR(36) NOT NULL,
  kind VARCHAR(16) NOT NULL,
  namespace VARCHAR(512) NOT NULL,
  name VARCHAR(255) NOT NULL,
  set_by VARCHAR(255) NOT NULL,
  set_at BIGINT NOT NULL,
  reason VARCHAR(1024) NOT NULL,
  CONSTRAINT pk_protection PRIMARY KEY (catalog_id, protection_key),
  CONSTRAINT fk_protection_catalog FOREIGN KEY (catalog_id) REFERENCES lethe_catalog (catalog_id)
);
