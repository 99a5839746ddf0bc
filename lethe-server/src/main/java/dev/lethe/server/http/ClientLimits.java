package dev.lethe.server.http;

/**
 * The name of the setting that bounds what one client address holds at once, on the HTTP port and
 * the store's gRPC port alike (docs/design/0420-a-slow-client-holds-nothing-of-the-others.md,
 * docs/design/0143-grpc-limits.md). The edge owns it so the listeners can name it in a refusal
 * without reaching back into config.
 */
public final class ClientLimits {
  /** {@code lethe.http.max-requests-per-client}: requests or calls of one client address in flight at once. */
  public static final String MAX_REQUESTS_PER_CLIENT_KEY = "lethe.http.max-requests-per-client";

  private ClientLimits() {}
}
