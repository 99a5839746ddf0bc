package dev.lethe.server.management;

import dev.lethe.server.auth.Access;
import dev.lethe.server.auth.AccessCheck;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.auth.Principal;
import dev.lethe.server.http.ReadRoutes;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code GET /api/whoami} (docs/design/0449-operator-console.md §2): who the token is and what it
 * may do, so a page can hide what the server would refuse. Any valid token; 401 without one or with
 * a bad one. The answer names the principal, never its token or hash: {@code {"principal", "admin",
 * "metalake", "catalogs": [{"name", "read", "write"}], "store": {"read", "write", "admin"}}}: the
 * store namespaces of its store grants ({@code ["*"]} for all), sorted, and whether it is a store
 * admin (docs/design/0452-console-store-view.md); with auth off the caller is the admin
 * {@code anonymous}, with the whole store.
 */
public final class WhoAmIRoutes {
  /** Path of the route. */
  public static final String PATH = "/api/whoami";

  private final AccessCheck access;
  private final String metalake;
  private final List<String> catalogs;

  /**
   * @param metalake the metalake every management path names
   * @param catalogs the catalogs this server serves
   */
  public WhoAmIRoutes(AccessCheck access, String metalake, List<String> catalogs) {
    this.access = access;
    this.metalake = metalake;
    this.catalogs = List.copyOf(catalogs);
  }

  /** Registers the route. */
  public void register(RoutesConfig routes) {
    ReadRoutes.getAndHead(routes, PATH, this::whoami);
  }

  private void whoami(Context ctx) {
    Optional<Principal> caller = access.storeCaller(AuthorizationHeader.of(ctx)); // 401 without a valid token
    List<Map<String, Object>> grants = new ArrayList<>();
    for (String catalog : catalogs) {
      boolean read = caller.map(p -> p.may(catalog, Access.READ)).orElse(true);
      boolean write = caller.map(p -> p.may(catalog, Access.WRITE)).orElse(true);
      if (read) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", catalog);
        row.put("read", true);
        row.put("write", write);
        grants.add(row);
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("principal", caller.map(Principal::name).orElse("anonymous"));
    body.put("admin", caller.map(Principal::isAdmin).orElse(true));
    body.put("metalake", metalake);
    body.put("catalogs", grants);
    Map<String, Object> store = new LinkedHashMap<>();
    store.put("read", caller.map(p -> namespaces(p.storeRead())).orElse(List.of(Principal.ANY_CATALOG)));
    store.put("write", caller.map(p -> namespaces(p.storeWrite())).orElse(List.of(Principal.ANY_CATALOG)));
    store.put("admin", caller.map(Principal::isStoreAdmin).orElse(true));
    body.put("store", store);
    ctx.status(200).json(body);
  }

  /** A store grant list as the page reads it: {@code ["*"]} when it holds the wildcard, else the names sorted. */
  private static List<String> namespaces(Set<String> grants) {
    return grants.contains(Principal.ANY_CATALOG) ? List.of(Principal.ANY_CATALOG) : grants.stream().sorted().toList();
  }
}
