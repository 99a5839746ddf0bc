-- Secrets every replica of one catalog database shares (docs/design/0423-signed-page-tokens.md):
-- the key page tokens are signed with. One row per name, written once by the first server to start
-- (a second inserting at the same time loses on the primary key and reads the winner's row).
-- secret: base64 of the key bytes; created_at: ms since epoch.
CREATE TABLE lethe_server_secret (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  secret VARCHAR(256) NOT NULL,
  created_at BIGINT NOT NULL
);
