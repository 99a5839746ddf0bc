package dev.lethe.server.console;

import dev.lethe.server.http.ReadRoutes;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The operator console (docs/design/0449-operator-console.md): {@code GET /ui} and the few files it
 * loads, served from the jar's {@code lethe-console/} resources and nothing else. A name not in
 * {@link #ASSETS} is a 404 whatever it spells ({@code ..}, {@code %2e%2e}, a directory), so no path
 * is ever resolved against the class path or the disk. The page itself needs no token; every data
 * call it makes carries the caller's bearer token.
 */
public final class ConsoleRoutes {
  /** The page's path. */
  public static final String ROOT = "/ui";
  /** The console's files: name under {@code /ui/} to content type; the page is {@code index.html}. */
  static final Map<String, String> ASSETS = Map.of(
      "index.html", "text/html; charset=utf-8",
      "console.js", "text/javascript; charset=utf-8",
      "api.js", "text/javascript; charset=utf-8",
      "views.js", "text/javascript; charset=utf-8",
      "console.css", "text/css; charset=utf-8",
      "trash.js", "text/javascript; charset=utf-8",
      "holds.js", "text/javascript; charset=utf-8",
      "store.js", "text/javascript; charset=utf-8");
  /** No inline script or style, nothing from another origin, never framed. */
  static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
      + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  private static final String RESOURCES = "/lethe-console/";

  private final Map<String, byte[]> files;

  /** Reads every asset once; a missing one is a build error, so it fails start-up. */
  public ConsoleRoutes() {
    Map<String, byte[]> read = new java.util.HashMap<>();
    for (String name : ASSETS.keySet()) {
      try (InputStream in = ConsoleRoutes.class.getResourceAsStream(RESOURCES + name)) {
        if (in == null) {
          throw new IllegalStateException("Cannot serve the console: resource " + RESOURCES + name + " is missing from the jar");
        }
        read.put(name, in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read console resource " + name, e);
      }
    }
    this.files = Map.copyOf(read);
  }

  /** Registers {@code GET} and {@code HEAD} of {@code /ui} (also spelled {@code /ui/}) and {@code /ui/<asset>}. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, ROOT, this::serve);
    ReadRoutes.getAndHead(routes, ROOT + "/<asset>", this::serve);
  }

  private void serve(Context ctx) {
    // the path as sent, not Javalin's match: it takes /ui/x/ for /ui/x, and only exact names are served
    String path = ctx.path();
    String name = path.equals(ROOT) || path.equals(ROOT + "/") ? "index.html" : path.substring(ROOT.length() + 1);
    String type = ASSETS.get(name);
    if (type == null) {
      throw new HttpResponseException(404, "No console file " + ROOT + "/" + name);
    }
    ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Referrer-Policy", "no-referrer");
    ctx.header("X-Frame-Options", "DENY");
    ctx.header("Cache-Control", "no-cache");
    ctx.contentType(type).result(files.get(name));
  }
}
