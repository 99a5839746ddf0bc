package dev.lethe.store.core.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.tombstone.Tombstones;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The text forms of a ledger (docs/design/0151-purge-log.md "Encoding"): one compact JSON object
 * per purge-log entry, {@code {"k":"ns/col/id","d":"3:<hex>","h":["2:<hex>",…],"at":ms,"p":ms}}
 * (the tombstone's revision is the deleted one's {@link Tombstones#revisionAfter}, so it is not
 * written), and the ledger state {@code {"id":…,"collectCutoff":ms|null,"peers":[…]}}.
 * Decoding is strict; a malformed line is an {@link IllegalStateException} naming it.
 */
public final class LedgerJson {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private LedgerJson() {}

  /** A ledger's id, last collect cutoff (nullable) and peers. */
  public record State(String id, Long collectCutoff, List<Peer> peers) {
    public State {
      peers = List.copyOf(peers);
    }
  }

  /** One line, no newline. */
  public static String entry(PurgeEntry e) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("k", e.key().toString());
    n.put("d", rev(e.deleted()));
    ArrayNode h = n.putArray("h");
    e.history().forEach(r -> h.add(rev(r)));
    if (e.deletedAt() != null) {
      n.put("at", e.deletedAt());
    }
    n.put("p", e.purgedAt());
    return n.toString();
  }

  /** Parses {@link #entry}'s line. */
  public static PurgeEntry entry(String line) {
    try {
      JsonNode n = MAPPER.readTree(line);
      Revision deleted = rev(n.get("d").textValue());
      List<Revision> history = new ArrayList<>();
      n.get("h").forEach(x -> history.add(rev(x.textValue())));
      JsonNode at = n.get("at");
      return new PurgeEntry(RecordKey.parse(n.get("k").textValue()), Tombstones.revisionAfter(deleted),
          deleted, history, at == null ? null : at.longValue(), n.get("p").longValue());
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException("Unreadable purge log entry: " + abbreviate(line), e);
    }
  }

  /** The state document. */
  public static String state(State s) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("id", s.id());
    if (s.collectCutoff() != null) {
      n.put("collectCutoff", s.collectCutoff());
    }
    ArrayNode peers = n.putArray("peers");
    for (Peer p : s.peers()) {
      peers.add(peer(p));
    }
    return n.toString();
  }

  /** Parses {@link #state(State)}'s document. */
  public static State state(String json) {
    try {
      JsonNode n = MAPPER.readTree(json);
      List<Peer> peers = new ArrayList<>();
      n.get("peers").forEach(p -> peers.add(peer(p)));
      JsonNode cut = n.get("collectCutoff");
      return new State(StoreIds.check(n.get("id").textValue()), cut == null ? null : cut.longValue(), peers);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException("Unreadable store ledger: " + abbreviate(json), e);
    }
  }

  /** A peer as a JSON object (also the remote routes' form). */
  public static ObjectNode peer(Peer p) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("id", p.id());
    n.put("uri", p.uri());
    n.put("lastSync", p.lastSyncMs());
    if (p.collectCutoffMs() != null) {
      n.put("collectCutoff", p.collectCutoffMs());
    }
    n.put("clockOffset", p.clockOffsetMs());
    return n;
  }

  /** Reads {@link #peer(Peer)}'s object. @throws IllegalArgumentException when a field is wrong */
  public static Peer peer(JsonNode p) {
    if (p == null || !p.isObject() || !p.path("id").isTextual() || !p.path("uri").isTextual()
        || !p.path("lastSync").isIntegralNumber() || !p.path("clockOffset").isIntegralNumber()
        || (p.has("collectCutoff") && !p.get("collectCutoff").isIntegralNumber())) {
      throw new IllegalArgumentException("Invalid peer: expected {\"id\",\"uri\",\"lastSync\",\"clockOffset\"[,\"collectCutoff\"]}");
    }
    return new Peer(p.get("id").textValue(), p.get("uri").textValue(), p.get("lastSync").longValue(),
        p.has("collectCutoff") ? p.get("collectCutoff").longValue() : null, p.get("clockOffset").longValue());
  }

  /** Parses a JSON text. @throws IllegalArgumentException if it is not JSON */
  public static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Invalid JSON: " + e.getOriginalMessage());
    }
  }

  /** A fresh object node. */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }


  private static String rev(Revision r) {
    return r.counter() + ":" + r.hash();
  }

  private static Revision rev(String s) {
    int i = s.indexOf(':');
    return new Revision(Long.parseLong(s.substring(0, i)), s.substring(i + 1));
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 120) + "…";
  }
}
