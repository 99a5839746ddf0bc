package dev.lethe.store.remote;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Answers of the hand-written peers that tests put in front of the remote client (a JDK HttpServer). */
final class FakePeer {
  private FakePeer() {}

  /** Sends {@code body} (JSON text) with {@code status} and its Content-Length, and ends the exchange. */
  static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
