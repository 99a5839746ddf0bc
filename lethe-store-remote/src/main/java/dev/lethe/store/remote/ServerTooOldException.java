package dev.lethe.store.remote;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The server answered a replication route with 404 or 405: it predates the raw routes
 * (docs/design/0104-remote-store-client.md, "No fallback"). The remote store never falls back to a
 * consumer route, which
 * would hide tombstones and resurrect deleted records; it fails with this instead.
 */
public final class ServerTooOldException extends UncheckedIOException {

  /**
   * @param what the call that could not be made, e.g. {@code Cannot read ns/col/id}
   * @param server the server's base URL
   * @param status 404 or 405
   * @param request the method and path answered, e.g. {@code GET /store/v1/raw/records/ns/col/id}
   */
  public ServerTooOldException(String what, String server, int status, String request) {
    super(what + " from " + server, new IOException("the server is too old for replication (HTTP " + status
        + " on " + request + "): upgrade it to a lethe server with the /store/v1/raw routes"));
  }
}
