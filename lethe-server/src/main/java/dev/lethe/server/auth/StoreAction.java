package dev.lethe.server.auth;

/**
 * What a store request does, as far as the store grants care (docs/design/0105-store-grants.md).
 * Every store route maps to exactly one action; {@link StoreGrants#decide} says who may do it.
 */
public enum StoreAction {
  /** {@code GET /store/v1}: what the served store is. Any authenticated principal. */
  INFO,
  /** Consumer and raw reads of one key. Needs {@code store.read} on its namespace. */
  READ,
  /**
   * Consumer and raw listings. Needs {@code store.read} on the listed namespace; a listing of the
   * whole store needs {@code store.read: ["*"]}.
   */
  LIST,
  /** Consumer put and delete. Needs {@code store.write} on the namespace. */
  WRITE,
  /** Raw put (replication). Needs {@code store.write} on the namespace, like a consumer write. */
  PUT_RAW,
  /** Reset (list, then tombstone every record). Needs both {@code store.read} and {@code store.write}. */
  RESET,
  /** Physical removal of a tombstone (and so a remote collect). Store admins only. */
  PURGE,
  /** Download or probe a blob by hash. Needs a {@code store.read} grant on some namespace. */
  BLOB_READ,
  /** Upload a blob. Needs a {@code store.write} grant on some namespace. */
  BLOB_WRITE,
  /** List or remove blobs (blob gc). Store admins only: blobs are shared by every namespace. */
  BLOB_ADMIN
}
