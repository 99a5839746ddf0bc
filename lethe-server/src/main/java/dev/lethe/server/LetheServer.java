package dev.lethe.server;

import io.javalin.Javalin;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The Lethe HTTP server: one process serving the catalog and the store daemon. */
public final class LetheServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  private final Javalin app;

  private LetheServer(Javalin app) {
    this.app = app;
  }

  /** Starts the server and returns once it is listening. */
  public static LetheServer start(ServerConfig config) {
    Javalin app = Javalin.create(c -> {
      c.startup.showJavalinBanner = false;
      c.routes.get("/healthz", ctx -> ctx.json(Map.of("status", "ok")));
    });
    app.start(config.host(), config.port());
    LetheServer server = new LetheServer(app);
    LOG.info("Lethe listening on {}", server.baseUrl(config.host()));
    return server;
  }

  /** The port actually bound. */
  public int port() {
    return app.port();
  }

  private String baseUrl(String host) {
    return "http://" + host + ":" + port();
  }

  @Override
  public void close() {
    app.stop();
  }
}
