package dev.lethe.store.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogPage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A server's ledger through its {@code /store/v1/ledger} routes
 * (docs/design/0150-store-identity-and-peers.md "Routes"). The server's store appends to its own
 * purge log when it purges, so the client never appends: {@link #appendPurged} is refused.
 * A server without the routes (404) is too old, as for the raw routes
 * (docs/design/0104-remote-store-client.md).
 */
final class RemoteLedger implements Ledger {

  private final StoreHttp http;
  private final RemoteStore store;
  private final String server;

  RemoteLedger(StoreHttp http, RemoteStore store, String server) {
    this.http = http;
    this.store = store;
    this.server = server;
  }

  private JsonNode call(String method, String path, JsonNode body, int ok, String what) {
    byte[] bytes = body == null ? null : body.toString().getBytes(StandardCharsets.UTF_8);
    Map<String, String> headers = body == null ? Map.of() : Map.of("Content-Type", "application/json");
    StoreHttp.Response r = http.send(method, "/ledger" + path, bytes, headers, what);
    if (r.status() != ok) {
      throw store.failure(r, what, method + " /store/v1/ledger" + path, true);
    }
    if (r.status() == 204) {
      return null;
    }
    try {
      return StrictJson.read(r.body(), "ledger answer");
    } catch (IllegalArgumentException e) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent an unreadable answer: " + e.getMessage(), e));
    }
  }

  private JsonNode info() {
    return call("GET", "", null, 200, "Cannot read the store's ledger");
  }

  @Override
  public String storeId() {
    return info().path("id").asText();
  }

  @Override
  public long now() {
    return info().path("now").asLong();
  }

  @Override
  public List<Peer> peers() {
    List<Peer> out = new ArrayList<>();
    call("GET", "/peers", null, 200, "Cannot list the store's peers").path("peers").forEach(p -> out.add(LedgerJson.peer(p)));
    return out;
  }

  @Override
  public void recordPeer(Peer peer) {
    call("PUT", "/peers/" + peer.id(), LedgerJson.peer(peer), 204, "Cannot record peer " + peer.id());
  }

  @Override
  public boolean forgetPeer(String id) {
    return call("DELETE", "/peers/" + id, null, 200, "Cannot forget peer " + id).path("forgotten").asBoolean();
  }

  @Override
  public Optional<Long> collectCutoff() {
    JsonNode c = info().get("collectCutoff");
    return c == null ? Optional.empty() : Optional.of(c.asLong());
  }

  @Override
  public void recordCollect(long cutoffMs) {
    ObjectNode b = LedgerJson.object();
    b.put("cutoff", cutoffMs);
    call("POST", "/collect", b, 204, "Cannot record a collect");
  }

  /** @throws UnsupportedOperationException always: the server's store logs its own purges */
  @Override
  public void appendPurged(PurgeEntry entry) {
    throw new UnsupportedOperationException("A remote store's purge log is written by the server's own purges");
  }

  /** Walks the server's pages (docs/design/0157-purge-log-pages.md); a server that does not page answers one. */
  @Override
  public List<PurgeEntry> purged(KeyPrefix prefix) {
    return PurgeLogPage.walk(after -> purgedPage(prefix, after, PurgeLogPage.MAX_SIZE));
  }

  @Override
  public PurgeLogPage purgedPage(KeyPrefix prefix, Optional<String> after, int size) {
    PurgeLogPage.checkSize(size);
    String path = "/purged" + (prefix.namespace() == null ? "" : "/" + prefix.namespace()
        + (prefix.collection() == null ? "" : "/" + prefix.collection()))
        + "?pageSize=" + size + after.map(t -> "&pageToken=" + URLEncoder.encode(t, StandardCharsets.UTF_8)).orElse("");
    JsonNode page = call("GET", path, null, 200, "Cannot read the purge log");
    List<PurgeEntry> out = new ArrayList<>();
    for (JsonNode line : page.path("entries")) {
      out.add(LedgerJson.entry(line.textValue()));
    }
    JsonNode next = page.get("nextPageToken");
    return new PurgeLogPage(out, next == null || next.isNull() ? Optional.empty() : Optional.of(next.textValue()));
  }

  @Override
  public int trimPurged(long purgedBeforeMs) {
    ObjectNode b = LedgerJson.object();
    b.put("before", purgedBeforeMs);
    return call("POST", "/trim", b, 200, "Cannot trim the purge log").path("removed").asInt();
  }
}
