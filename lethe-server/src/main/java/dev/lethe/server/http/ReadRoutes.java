package dev.lethe.server.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Handler;

/**
 * Registers a read route for {@code GET} and {@code HEAD} alike (docs/design/0422-what-a-reader-is-told.md).
 * Javalin answers a {@code HEAD} on a path that has only a {@code GET} handler with {@code 200}
 * and runs no handler, so no access check either; registered here, a {@code HEAD} runs the {@code
 * GET} handler, its checks and its status, and Jetty sends the answer's headers without its body.
 */
public final class ReadRoutes {
  private ReadRoutes() {}

  /** Registers {@code handler} for {@code GET path} and {@code HEAD path}. */
  public static void getAndHead(RoutesConfig routes, String path, Handler handler) {
    routes.get(path, handler);
    routes.head(path, handler);
  }
}
