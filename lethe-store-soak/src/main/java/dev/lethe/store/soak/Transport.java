package dev.lethe.store.soak;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a soak client reaches a replica: a store URI scheme, and the server setting (an environment
 * variable) that opens its port, or none when it is the HTTP port every replica has.
 *
 * @param name the name on the command line ({@code --transports http,…})
 * @param scheme the store URI scheme the client opens, {@code <scheme>://127.0.0.1:<port>}
 * @param portVariable the environment variable giving the replica this transport's port, or null
 *     for the replica's HTTP port
 */
public record Transport(String name, String scheme, String portVariable) {

  /** The daemon's HTTP routes. */
  public static final Transport HTTP = new Transport("http", "http", null);

  /** The daemon's gRPC port (docs/design/0141-grpc-transport.md), opened by {@code lethe.store.grpc-port}. */
  public static final Transport GRPC = new Transport("grpc", "grpc", "LETHE_STORE_GRPC_PORT");

  /** Every transport the soak knows, by name. */
  public static final Map<String, Transport> KNOWN = Map.of(HTTP.name(), HTTP, GRPC.name(), GRPC);

  /** The store URI of a replica listening on {@code port} for this transport. */
  public String uri(int port) {
    return scheme + "://127.0.0.1:" + port;
  }

  /**
   * Parses a comma-separated list of transport names.
   *
   * @throws IllegalArgumentException naming an unknown or repeated transport, or for an empty list
   */
  public static List<Transport> parseList(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("Invalid --transports '': name at least one of " + KNOWN.keySet());
    }
    List<String> names = List.of(text.split(",", -1));
    if (names.stream().distinct().count() != names.size()) {
      throw new IllegalArgumentException("Invalid --transports '" + text + "': a transport is named twice");
    }
    return names.stream().map(n -> Optional.ofNullable(KNOWN.get(n.trim())).orElseThrow(() -> new IllegalArgumentException(
        "Invalid --transports '" + text + "': unknown transport '" + n + "', known: " + KNOWN.keySet()))).toList();
  }
}
