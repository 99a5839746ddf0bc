package dev.lethe.store.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.DraftJson;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.format.RevisionJson;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.planner.ConsumerPutPlanner;
import dev.lethe.store.core.planner.RawPutPlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Store} on a {@code lethe server}, over its {@code /store/v1} routes
 * (docs/design/0104-remote-store-client.md). Store URIs {@code
 * http://host:port} and {@code https://host:port} (optionally with a path prefix in front of
 * {@code /store/v1}).
 *
 * <p>Every decision is the server's store's: this class only maps calls to routes and answers to
 * results, exactly as docs/store.md "Routes" lists them (201/200 Committed, 409 Conflict with the
 * stored record, 412 NotFound, 204 on a raw read of an absent key). Each replication method calls
 * only its raw route and never falls back to a consumer route: a 404 or 405 there means the
 * server predates replication and is a {@link ServerTooOldException}. Other failures: 400 is an
 * {@link IllegalArgumentException} carrying the server's message (nothing was written); 401, 403,
 * 413 and 5xx, and a server that cannot be reached, are {@link UncheckedIOException}s naming the
 * server and the status. The bearer token, if any, goes on every request and in no message.
 *
 * <p>Every record a server sends is checked with {@link RevisionHash#problem} before it is
 * returned (docs/design/0108-records-that-prove-their-content.md): one whose revision does not
 * prove its content is a {@link CorruptRecordException} naming its key and the server, as is the
 * server's own {@code 500 CorruptRecord} answer, so a client never serves or syncs a corrupt
 * record, whatever the server's version.
 *
 * <p>Thread-safe.
 */
public final class RemoteStore implements Store {

  /** How long to wait for a connection. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** How long to wait for a whole answer (a page of records or a blob), body included. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);
  /** Page size of {@link #list} and {@link #listRaw}, which walk the server's pages. */
  private static final int WALK_PAGE = 500;
  /** Body bytes of one batched raw put, well under the server's 8 MiB default request limit. */
  static final int BATCH_BYTES = 1 << 20;

  private static final Map<String, String> NONE = Map.of();

  private final StoreHttp http;
  private final String server;
  private final RecordJson json = new RecordJson();
  private final RemoteBlobStore blobs;
  private final RemoteLedger ledger;
  private volatile Integer ancestorCap;
  private volatile Integer maxBatchItems;
  private volatile boolean batchUnsupported;

  private RemoteStore(StoreHttp http, String server) {
    this.http = http;
    this.server = server;
    this.blobs = new RemoteBlobStore(http, this);
    this.ledger = new RemoteLedger(http, this, server);
  }

  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return ledger;
  }

  /** Returns whether {@code uri} names a remote store ({@code http://} or {@code https://}). */
  public static boolean supports(String uri) {
    return uri != null && (uri.startsWith("http://") || uri.startsWith("https://"));
  }

  /**
   * Opens a remote store; nothing is sent until the first call.
   *
   * @param uri {@code http(s)://host[:port][/prefix]}; the routes are at {@code <uri>/store/v1}
   *     (a URI already ending in {@code /store/v1} is taken as is)
   * @param token the bearer token to send, or empty for none; never logged
   * @throws IllegalArgumentException for a URI that is not an http(s) URL with a host, or that
   *     carries a query, a fragment or user info; for a token that is not visible ASCII ({@link
   *     BearerToken#check}; the message never shows it)
   */
  public static RemoteStore open(String uri, Optional<String> token) {
    return open(uri, token, REQUEST_TIMEOUT);
  }

  /** {@link #open(String, Optional)} with another time limit for a whole answer (tests). */
  static RemoteStore open(String uri, Optional<String> token, Duration requestTimeout) {
    // user info may carry a password, and a query or fragment a token (?access_token=…, the very
    // reason they are refused): never echo those parts (docs/design/0414-a-bad-token-is-refused-unprinted.md)
    String shown = uri == null ? "null"
        : uri.replaceAll("//[^/@]*@", "//***@").replaceAll("\\?[^#]*", "?***").replaceAll("#.*$", "#***");
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Invalid store URI '" + shown + "': not a URL");
    }
    if (!supports(uri) || u.getHost() == null) {
      throw new IllegalArgumentException("Invalid store URI '" + shown + "': expected http://host:port or https://host:port");
    }
    if (u.getRawQuery() != null || u.getRawFragment() != null || u.getRawUserInfo() != null) {
      throw new IllegalArgumentException("Invalid store URI '" + shown
          + "': no query, fragment or user info (pass a token with --token or LETHE_TOKEN)");
    }
    String base = uri.replaceAll("/+$", "");
    String server = base;
    if (!base.endsWith("/store/v1")) {
      base = base + "/store/v1";
    } else {
      server = base.substring(0, base.length() - "/store/v1".length());
    }
    Optional<String> t = token.filter(s -> !s.isBlank());
    t.ifPresent(value -> BearerToken.check(value, "the token given"));
    return new RemoteStore(new StoreHttp(base, t, CONNECT_TIMEOUT, requestTimeout), server);
  }

  // ---- consumer surface ---------------------------------------------------------------------

  @Override
  public Optional<Record> get(RecordKey key) {
    String what = "Cannot read " + key;
    StoreHttp.Response r = http.send("GET", "/records/" + key, null, NONE, what);
    return switch (r.status()) {
      case 200 -> Optional.of(decode(r, key));
      case 404 -> Optional.empty();
      default -> throw failure(r, what, "GET /store/v1/records/" + key, false);
    };
  }

  @Override
  public List<Record> list(KeyPrefix prefix) {
    return walk(prefix, false);
  }

  @Override
  public Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    return page(prefix, after, limit, false);
  }

  @Override
  public PutResult put(Record record, Optional<Revision> expected) {
    ConsumerPutPlanner.validate(record);
    RecordKey key = record.key();
    StoreHttp.Response r = http.send("PUT", "/records/" + key, DraftJson.encode(record, Optional.empty()),
        expectation(expected), "Cannot put " + key);
    return putResult(r, key, "PUT /store/v1/records/" + key, false);
  }

  @Override
  public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
    String what = "Cannot delete " + key;
    byte[] body = null;
    if (author.isPresent()) {
      ObjectNode n = StrictJson.mapper().createObjectNode();
      n.put("author", author.get());
      body = n.toString().getBytes(StandardCharsets.UTF_8);
    }
    Map<String, String> headers = expected.map(e -> Map.of("If-Match", RevisionJson.format(e))).orElse(NONE);
    StoreHttp.Response r = http.send("DELETE", "/records/" + key, body, headers, what);
    return deleteResult(r, key, what, "DELETE /store/v1/records/" + key, false);
  }

  // ---- replication surface ------------------------------------------------------------------

  @Override
  public Optional<Record> getRaw(RecordKey key) {
    String what = "Cannot read " + key;
    StoreHttp.Response r = http.send("GET", "/raw/records/" + key, null, NONE, what);
    return switch (r.status()) {
      case 200 -> Optional.of(decode(r, key));
      case 204 -> Optional.empty();
      default -> throw failure(r, what, "GET /store/v1/raw/records/" + key, true);
    };
  }

  @Override
  public List<Record> listRaw(KeyPrefix prefix) {
    return walk(prefix, true);
  }

  @Override
  public Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    return page(prefix, after, limit, true);
  }

  @Override
  public PutResult putRaw(Record record, Optional<Revision> expected) {
    // refused here as the server refuses it, so a server of any version never receives one
    RawPutPlanner.validate(record);
    RecordKey key = record.key();
    StoreHttp.Response r = http.send("PUT", "/raw/records/" + key, json.encode(record), expectation(expected),
        "Cannot put " + key);
    return putResult(r, key, "PUT /store/v1/raw/records/" + key, true);
  }

  /**
   * Raw puts in as few requests as the server allows: {@code POST /store/v1/raw/batch/{ns}}, one
   * per run of items in one namespace, at most the server's {@code maxBatchItems} ({@code GET
   * /store/v1}) and about {@value #BATCH_BYTES} bytes of body each (a larger single record goes
   * alone). The server decides each item as its own {@code putRaw}; the answers map as {@link
   * #putRaw}'s (201/200 Committed, 409 Conflict, 412 NotFound). A server that has the raw routes but
   * not this one (404 or 405, or no {@code maxBatchItems} in its settings) gets one {@code PUT} per
   * item instead: still a raw route, never a consumer one.
   *
   * @throws IllegalArgumentException for a batch the server refuses as invalid (nothing of that
   *     request written)
   * @throws UncheckedIOException as {@link #putRaw}; requests already answered stay written
   */
  @Override
  public List<PutResult> putRawBatch(List<RawPut> items) {
    items.forEach(item -> RawPutPlanner.validate(item.record()));
    int max = maxBatchItems();
    if (max <= 0) {
      return Store.super.putRawBatch(items);
    }
    List<PutResult> out = new ArrayList<>(items.size());
    int from = 0;
    while (from < items.size()) {
      String ns = items.get(from).record().key().namespace();
      java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
      body.write('[');
      List<RawPut> chunk = new ArrayList<>();
      while (from < items.size() && chunk.size() < max
          && items.get(from).record().key().namespace().equals(ns)) {
        RawPut item = items.get(from);
        ObjectNode n = StrictJson.mapper().createObjectNode();
        n.set("record", json.toJson(item.record()));
        if (item.expected().isPresent()) {
          n.set("expected", RevisionJson.toNode(item.expected().get()));
        }
        byte[] encoded = n.toString().getBytes(StandardCharsets.UTF_8);
        if (!chunk.isEmpty() && body.size() + encoded.length + 2 > BATCH_BYTES) {
          break;
        }
        if (!chunk.isEmpty()) {
          body.write(',');
        }
        body.writeBytes(encoded);
        chunk.add(item);
        from++;
      }
      body.write(']');
      List<PutResult> results = sendBatch(ns, chunk, body);
      if (results == null) {
        batchUnsupported = true;
        for (int i = from - chunk.size(); i < items.size(); i++) {
          out.add(putRaw(items.get(i).record(), items.get(i).expected()));
        }
        return out;
      }
      out.addAll(results);
    }
    return out;
  }

  /** The answers of one batch request, or null when the server has no batch route. */
  private List<PutResult> sendBatch(String ns, List<RawPut> chunk, java.io.ByteArrayOutputStream body) {
    String what = "Cannot put a batch of " + chunk.size() + " records from " + chunk.get(0).record().key();
    String route = "/raw/batch/" + ns;
    StoreHttp.Response r = http.send("POST", route, body.toByteArray(), NONE, what);
    if (r.status() == 404 || r.status() == 405) {
      return null;
    }
    if (r.status() != 200) {
      throw failure(r, what, "POST /store/v1" + route, true);
    }
    List<PutResult> results = new ArrayList<>(chunk.size());
    try {
      JsonNode answers = StrictJson.read(r.body(), "batch answer").path("results");
      if (!answers.isArray() || answers.size() != chunk.size()) {
        throw new IllegalArgumentException("expected " + chunk.size() + " results");
      }
      for (int i = 0; i < answers.size(); i++) {
        JsonNode a = answers.get(i);
        int status = a.path("status").asInt();
        RecordKey key = chunk.get(i).record().key();
        results.add(switch (status) {
          case 200, 201 -> new Committed(verified(requireKey(json.fromJson(a.get("record")), key, what)));
          case 409 -> new Conflict(verified(requireKey(json.fromJson(a.get("record")), key, what)));
          case 412 -> new NotFound();
          default -> throw new IllegalArgumentException("an item answered " + status);
        });
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent an unreadable batch answer: " + e.getMessage(), e));
    }
    return results;
  }

  /** The server's {@code maxBatchItems}, or 0 when it has no batch route. */
  private int maxBatchItems() {
    if (batchUnsupported) {
      return 0;
    }
    Integer max = maxBatchItems;
    if (max == null) {
      String what = "Cannot read the store's settings";
      StoreHttp.Response r = http.send("GET", "", null, NONE, what);
      if (r.status() != 200) {
        throw failure(r, what, "GET /store/v1", false);
      }
      max = settings(r, what).path("maxBatchItems").asInt(0);
      maxBatchItems = max;
    }
    return max;
  }

  @Override
  public DeleteResult purge(RecordKey key, Optional<Revision> expected) {
    String what = "Cannot purge " + key;
    Map<String, String> headers = expected.map(e -> Map.of("If-Match", RevisionJson.format(e))).orElse(NONE);
    StoreHttp.Response r = http.send("POST", "/raw/purge/" + key, null, headers, what);
    return deleteResult(r, key, what, "POST /store/v1/raw/purge/" + key, true);
  }

  @Override
  public BlobStore blobs() {
    return blobs;
  }

  /**
   * The server's ancestor cap ({@code GET /store/v1}), read once: the server's store normalises
   * every record it writes to it, whatever cap the client was started with.
   *
   * @throws UncheckedIOException if the server cannot tell
   */
  @Override
  public int ancestorCap() {
    Integer cap = ancestorCap;
    if (cap == null) {
      String what = "Cannot read the store's settings";
      StoreHttp.Response r = http.send("GET", "", null, NONE, what);
      if (r.status() != 200) {
        throw failure(r, what, "GET /store/v1", false);
      }
      JsonNode n = settings(r, what).path("ancestorCap");
      if (!n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() < 1) {
        throw new UncheckedIOException(what + " on " + server,
            new IOException("the server sent no ancestor cap of at least 1: " + n));
      }
      cap = n.intValue();
      ancestorCap = cap;
    }
    return cap;
  }

  /** The settings {@code GET /store/v1} answered; an answer that is not JSON is the server's failure. */
  private JsonNode settings(StoreHttp.Response r, String what) {
    try {
      return StrictJson.read(r.body(), "store settings");
    } catch (IllegalArgumentException e) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent unreadable settings: " + e.getMessage(), e));
    }
  }

  @Override
  public String toString() {
    return "RemoteStore[" + server + "]";
  }

  // ---- mapping ------------------------------------------------------------------------------

  private static Map<String, String> expectation(Optional<Revision> expected) {
    return expected.map(e -> Map.of("If-Match", RevisionJson.format(e))).orElse(Map.of("If-None-Match", "*"));
  }

  private Record decode(StoreHttp.Response r, RecordKey key) {
    Record record;
    try {
      record = json.decode(r.body());
    } catch (IllegalArgumentException e) {
      throw new UncheckedIOException("Cannot read " + key + " from " + server,
          new IOException("the server sent an unreadable record: " + e.getMessage(), e));
    }
    return verified(requireKey(record, key, "Cannot read " + key));
  }

  /**
   * Returns {@code record} if it is the record of {@code key}: a server answering a call about one
   * key with another key's record would have sync copy it under the wrong key.
   */
  private Record requireKey(Record record, RecordKey key, String what) {
    if (!record.key().equals(key)) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent the record of " + record.key() + " for " + key));
    }
    return record;
  }

  private Record verified(Record record) {
    return RevisionHash.check(record, sentBy());
  }

  private String sentBy() {
    return server + " (as the server sent it)";
  }

  private PutResult putResult(StoreHttp.Response r, RecordKey key, String request, boolean raw) {
    return switch (r.status()) {
      case 200, 201 -> new Committed(decode(r, key));
      case 409 -> new Conflict(decode(r, key));
      case 412 -> new NotFound();
      default -> throw failure(r, "Cannot put " + key, request, raw);
    };
  }

  private DeleteResult deleteResult(StoreHttp.Response r, RecordKey key, String what, String request, boolean raw) {
    return switch (r.status()) {
      case 200 -> new Deleted(Optional.of(decode(r, key)));
      case 204 -> Deleted.nothingWritten();
      case 409 -> new Conflict(decode(r, key));
      default -> throw failure(r, what, request, raw);
    };
  }

  private Page page(KeyPrefix prefix, Optional<RecordKey> after, int limit, boolean raw) {
    Objects.requireNonNull(prefix, "prefix");
    Page.checkLimit(limit);
    StringBuilder path = new StringBuilder(raw ? "/raw/records" : "/records");
    if (prefix.namespace() != null) {
      path.append('/').append(prefix.namespace());
      if (prefix.collection() != null) {
        path.append('/').append(prefix.collection());
      }
    }
    String route = path.toString();
    path.append("?pageSize=").append(limit);
    after.ifPresent(a -> path.append("&startAfter=").append(URLEncoder.encode(a.toString(), StandardCharsets.UTF_8)));
    String what = "Cannot list " + prefix;
    StoreHttp.Response r = http.send("GET", path.toString(), null, NONE, what);
    if (r.status() != 200) {
      throw failure(r, what, "GET /store/v1" + route, raw);
    }
    JsonNode body;
    List<Record> records = new ArrayList<>();
    try {
      body = StrictJson.read(r.body(), "listing");
      if (!body.path("records").isArray()) {
        throw new IllegalArgumentException("no 'records' array");
      }
      for (JsonNode n : body.path("records")) {
        records.add(json.fromJson(n));
      }
      checkPage(records, prefix, after, limit);
    } catch (IllegalArgumentException e) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent an unreadable page: " + e.getMessage(), e));
    }
    JsonNode token = body.get("nextPageToken");
    boolean more = token != null && !token.isNull() && !records.isEmpty();
    return RevisionHash.checkPage(
        new Page(records, more ? Optional.of(records.get(records.size() - 1).key()) : Optional.empty()),
        k -> sentBy());
  }

  /**
   * Refuses a page that is not what was asked for: at most {@code limit} records, every one under
   * {@code prefix}, in strictly ascending key order and strictly after {@code after}. The walk
   * continues after a page's last key, so a server answering the same (or an earlier) page again
   * would otherwise make a listing or a sync run forever; a record outside the scope would be
   * synced although the caller did not ask for it.
   *
   * @throws IllegalArgumentException naming the first record that breaks the order or the scope
   */
  private static void checkPage(List<Record> records, KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    if (records.size() > limit) {
      throw new IllegalArgumentException(records.size() + " records, " + limit + " asked for");
    }
    RecordKey previous = after.orElse(null);
    for (Record rec : records) {
      if (!prefix.matches(rec.key())) {
        throw new IllegalArgumentException("record " + rec.key() + " is not under " + prefix);
      }
      if (previous != null && rec.key().compareTo(previous) <= 0) {
        throw new IllegalArgumentException("record " + rec.key() + " does not come after " + previous
            + (previous == after.orElse(null) ? " (where the page was asked to start)" : ""));
      }
      previous = rec.key();
    }
  }

  private List<Record> walk(KeyPrefix prefix, boolean raw) {
    List<Record> out = new ArrayList<>();
    Optional<RecordKey> after = Optional.empty();
    do {
      Page p = page(prefix, after, WALK_PAGE, raw);
      out.addAll(p.records());
      after = p.next();
    } while (after.isPresent());
    return out;
  }

  /**
   * The exception for an answer no outcome maps: 400 → {@link IllegalArgumentException} with the
   * server's message; 404/405 on a replication route → {@link ServerTooOldException}; anything
   * else → {@link UncheckedIOException} naming the status.
   */
  RuntimeException failure(StoreHttp.Response r, String what, String request, boolean raw) {
    int status = r.status();
    if (status == 500 && r.errorField("type").filter("CorruptRecord"::equals).isPresent()) {
      Optional<RecordKey> key = r.errorField("key").flatMap(RemoteStore::parseKey);
      if (key.isPresent()) {
        return new CorruptRecordException(key.get(), server, "the server reports: " + r.message());
      }
      return new CorruptRecordException(server, new IOException(r.message()));
    }
    if (status == 400) {
      return new IllegalArgumentException(r.message());
    }
    if (raw && (status == 404 || status == 405)) {
      return new ServerTooOldException(what, server, status, request);
    }
    String hint = status == 401 && !http.hasToken() ? " (no token given: use --token or LETHE_TOKEN)" : "";
    return new UncheckedIOException(what + " on " + server,
        new IOException("HTTP " + status + " " + reason(status) + ": " + r.message() + hint));
  }

  private static Optional<RecordKey> parseKey(String text) {
    try {
      return Optional.of(RecordKey.parse(text));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String reason(int status) {
    Map<Integer, String> reasons = new LinkedHashMap<>();
    reasons.put(401, "Unauthorized");
    reasons.put(403, "Forbidden");
    reasons.put(404, "Not Found");
    reasons.put(405, "Method Not Allowed");
    reasons.put(413, "Payload Too Large");
    reasons.put(500, "Internal Server Error");
    reasons.put(503, "Service Unavailable");
    return reasons.getOrDefault(status, "");
  }
}
