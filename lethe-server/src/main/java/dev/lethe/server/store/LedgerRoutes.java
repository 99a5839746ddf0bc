package dev.lethe.server.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.server.auth.Principal;
import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.RequestBody;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogPage;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The served store's ledger over HTTP (docs/design/0150-store-identity-and-peers.md "Routes";
 * docs/store.md "Routes"):
 *
 * <ul>
 *   <li>{@code GET /store/v1/ledger}: 200 {@code {id, now, collectCutoff?}} (any principal);
 *   <li>{@code GET /store/v1/ledger/peers}: 200 {@code {peers: [{id, uri, lastSync, clockOffset,
 *       collectCutoff?}]}} (admins);
 *   <li>{@code PUT /store/v1/ledger/peers/{id}}: 204, body a peer with that id (a writer);
 *   <li>{@code DELETE /store/v1/ledger/peers/{id}}: 200 {@code {forgotten: bool}} (admins);
 *   <li>{@code GET /store/v1/ledger/purged[/{ns}[/{col}]]}: 200 {@code {entries: [line…]}}, the
 *       purge log's entries in its own compact form (a reader of the namespace); with {@code
 *       pageSize} (1 to 1000) or {@code pageToken}, one page and {@code nextPageToken} (null on the
 *       last page), signed and bound to the scope (docs/design/0157-purge-log-pages.md);
 *   <li>{@code POST /store/v1/ledger/collect}: 204, body {@code {cutoff: ms}} (admins);
 *   <li>{@code POST /store/v1/ledger/trim}: 200 {@code {removed: n}}, body {@code {before: ms}} (admins).
 * </ul>
 *
 * Each route parses its request and makes one {@link StoreLedgerService} call, as the gRPC calls
 * do. Bad input is a 400 with a JSON body ({@link dev.lethe.server.http.ErrorMapper}); nothing is changed.
 */
final class LedgerRoutes {

  /** A route body, given the caller. */
  @FunctionalInterface
  interface Body {
    void handle(Context ctx, Optional<Principal> caller) throws Exception;
  }

  private static final String ROOT = StoreRoutes.ROOT + "/ledger";

  private final StoreLedgerService ledger;
  private final PageTokenKey pageTokens;

  LedgerRoutes(StoreService service, PageTokenKey pageTokens) {
    this.ledger = new StoreLedgerService(service);
    this.pageTokens = pageTokens;
  }

  void register(RoutesConfig routes, BiFunction<String, Body, Handler> wrap) {
    routes.get(ROOT, wrap.apply(ROOT, this::info));
    routes.get(ROOT + "/peers", wrap.apply(ROOT, this::peers));
    routes.put(ROOT + "/peers/{id}", wrap.apply(ROOT, this::recordPeer));
    routes.delete(ROOT + "/peers/{id}", wrap.apply(ROOT, this::forgetPeer));
    routes.get(ROOT + "/purged", wrap.apply(ROOT, this::purged));
    routes.get(ROOT + "/purged/{ns}", wrap.apply(ROOT, this::purged));
    routes.get(ROOT + "/purged/{ns}/{col}", wrap.apply(ROOT, this::purged));
    routes.post(ROOT + "/collect", wrap.apply(ROOT, this::collect));
    routes.post(ROOT + "/trim", wrap.apply(ROOT, this::trim));
  }

  private void info(Context ctx, Optional<Principal> auth) {
    StoreLedgerService.Info i = ledger.info(auth);
    ObjectNode n = StrictJson.mapper().createObjectNode();
    n.put("id", i.id());
    n.put("now", i.now());
    i.collectCutoff().ifPresent(c -> n.put("collectCutoff", c));
    json(ctx, 200, n);
  }

  private void peers(Context ctx, Optional<Principal> auth) {
    ObjectNode n = StrictJson.mapper().createObjectNode();
    ArrayNode a = n.putArray("peers");
    ledger.peers(auth).forEach(p -> a.add(LedgerJson.peer(p)));
    json(ctx, 200, n);
  }

  private void recordPeer(Context ctx, Optional<Principal> auth) {
    ledger.recordPeer(auth, ctx.pathParam("id"), () -> StrictJson.read(RequestBody.read(ctx), "peer"));
    ctx.status(204);
  }

  private void forgetPeer(Context ctx, Optional<Principal> auth) {
    ObjectNode n = StrictJson.mapper().createObjectNode();
    n.put("forgotten", ledger.forgetPeer(auth, ctx.pathParam("id")));
    json(ctx, 200, n);
  }

  private void purged(Context ctx, Optional<Principal> auth) {
    KeyPrefix prefix = StoreRequests.prefix(ctx);
    String token = ctx.queryParam("pageToken");
    ObjectNode n = StrictJson.mapper().createObjectNode();
    ArrayNode a = n.putArray("entries");
    if (token == null && ctx.queryParam("pageSize") == null) {
      for (PurgeEntry e : ledger.purged(auth, prefix)) { // the whole log, for clients that do not page
        a.add(LedgerJson.entry(e));
      }
      json(ctx, 200, n);
      return;
    }
    int size = ctx.queryParam("pageSize") == null ? PurgeLogPage.MAX_SIZE : StoreRequests.pageSize(ctx);
    Optional<String> after = token == null ? Optional.empty()
        : Optional.of(PageToken.decode(pageTokens, token, "purged", prefix.toString()));
    PurgeLogPage page = ledger.purgedPage(auth, prefix, after, size);
    page.entries().forEach(e -> a.add(LedgerJson.entry(e)));
    n.put("nextPageToken", page.next().map(c -> PageToken.encode(pageTokens, "purged", prefix.toString(), c)).orElse(null));
    json(ctx, 200, n);
  }

  private static long field(Context ctx, String name) {
    JsonNode n = StrictJson.read(RequestBody.read(ctx), name);
    JsonNode v = n.get(name);
    if (!n.isObject() || n.size() != 1 || v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
      throw new IllegalArgumentException("Invalid body: expected {\"" + name + "\": ms since the epoch, not negative}");
    }
    return v.longValue();
  }

  private void collect(Context ctx, Optional<Principal> auth) {
    ledger.recordCollect(auth, () -> field(ctx, "cutoff"));
    ctx.status(204);
  }

  private void trim(Context ctx, Optional<Principal> auth) {
    ObjectNode n = StrictJson.mapper().createObjectNode();
    n.put("removed", ledger.trimPurged(auth, () -> field(ctx, "before")));
    json(ctx, 200, n);
  }

  private static void json(Context ctx, int status, ObjectNode body) {
    try {
      ctx.status(status).contentType("application/json").result(StrictJson.mapper().writeValueAsBytes(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
