package dev.lethe.server.auth;

/** What a request does to a catalog. */
public enum Access {
  /** Reads: config, list, load, exists. Granted by the {@code read} or the {@code write} list. */
  READ,
  /** Changes: create, commit, rename, register, drop, purge. Granted by the {@code write} list. */
  WRITE
}
