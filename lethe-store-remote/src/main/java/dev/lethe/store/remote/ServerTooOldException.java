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

  /**
   * A server on another transport that lacks a replication call.
   *
   * @param what the call that could not be made, e.g. {@code Cannot read ns/col/id}
   * @param server the server's address
   * @param answer what the server answered, e.g. {@code gRPC UNIMPLEMENTED on GetRaw}
   * @param upgrade what the server needs, e.g. {@code the gRPC replication calls}
   */
  public ServerTooOldException(String what, String server, String answer, String upgrade) {
    super(what + " from " + server, new IOException("the server is too old for replication (" + answer
        + "): upgrade it to a lethe server with " + upgrade));
  }
}
