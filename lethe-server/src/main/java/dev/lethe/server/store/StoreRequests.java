package dev.lethe.server.store;

import dev.lethe.server.http.PageTokenKey;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.format.RecordFormatException;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.format.RevisionJson;
import dev.lethe.store.core.format.StrictJson;
import io.javalin.http.Context;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses the parts of a store request (docs/design/0103-store-http-routes.md): the key or prefix
 * in the path, the expected revision ({@code If-Match} revision JSON, {@code If-None-Match: *},
 * or a body field), the page parameters, and the JSON bodies, all strictly. Every problem is an
 * {@link IllegalArgumentException} naming it (400); nothing has been read from or written to the
 * store yet.
 */
final class StoreRequests {

  /** Page size when {@code pageSize} is absent. */
  static final int DEFAULT_PAGE_SIZE = 100;

  private static final RecordJson RECORD_JSON = new RecordJson();

  /** A number in a query parameter: plain decimal digits, no sign, space or other spelling. */
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  /** The headers a store route reads a decision from; each may appear at most once. */
  private static final List<String> SINGLE_HEADERS = List.of("If-Match", "If-None-Match");

  private StoreRequests() {}

  /** A requested page: where to start and how many. */
  record PageRequest(Optional<RecordKey> after, int limit) {}

  /**
   * Refuses a request that gives a query parameter, {@code If-Match} or {@code If-None-Match} more
   * than once (docs/design/0411-one-value-per-request-part.md): a reader that took the first or the
   * last repetition would act on a value the client may not have meant, as a repeated JSON field
   * would. Runs on every store route, after the caller is known and before anything is read.
   *
   * @throws IllegalArgumentException naming the repeated parameter or header
   */
  static void rejectRepeats(Context ctx) {
    for (Map.Entry<String, List<String>> e : ctx.queryParamMap().entrySet()) {
      if (e.getValue().size() > 1) {
        throw new IllegalArgumentException("Invalid request: query parameter '" + printable(e.getKey()) + "' given "
            + e.getValue().size() + " times; give it once (nothing read or written)");
      }
    }
    for (String name : SINGLE_HEADERS) {
      int n = Collections.list(ctx.req().getHeaders(name)).size();
      if (n > 1) {
        throw new IllegalArgumentException("Invalid request: " + name + " given " + n
            + " times; give one expected revision (nothing read or written)");
      }
    }
  }

  static RecordKey key(Context ctx) {
    return new RecordKey(ctx.pathParam("ns"), ctx.pathParam("col"), ctx.pathParam("id"));
  }

  /** The namespace named by the path, validated as a key's namespace. */
  static String namespace(Context ctx) {
    return new KeyPrefix(ctx.pathParam("ns"), null).namespace();
  }

  /** The prefix named by the path: the whole store, a namespace, or a collection. */
  static KeyPrefix prefix(Context ctx) {
    String ns = ctx.pathParamMap().get("ns");
    String col = ctx.pathParamMap().get("col");
    return new KeyPrefix(ns, col);
  }

  static String blobHash(Context ctx) {
    String hash = ctx.pathParam("hash");
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException("Invalid blob hash '" + printable(hash)
          + "': expected 64 lowercase hex characters (the SHA-256 of the content)");
    }
    return hash;
  }

  /**
   * The expected revision: {@code If-Match} with the revision JSON, {@code If-None-Match: *} for
   * "must not exist", or {@code fromBody}; none of them also means "must not exist".
   *
   * @throws IllegalArgumentException for malformed headers, both headers, or a header and a body
   *     field that disagree
   */
  static Optional<Revision> expected(Context ctx, Optional<Revision> fromBody) {
    String ifMatch = ctx.header("If-Match");
    String ifNoneMatch = ctx.header("If-None-Match");
    if (ifMatch != null && ifNoneMatch != null) {
      throw new IllegalArgumentException("Invalid request: If-Match and If-None-Match together");
    }
    if (ifNoneMatch != null) {
      if (!ifNoneMatch.trim().equals("*")) {
        throw new IllegalArgumentException("Invalid If-None-Match: only * (must not exist) is supported");
      }
      if (fromBody.isPresent()) {
        throw new IllegalArgumentException("Invalid request: If-None-Match: * and an expected revision in the body");
      }
      return Optional.empty();
    }
    if (ifMatch != null) {
      Revision header;
      try {
        header = RevisionJson.parse(ifMatch);
      } catch (RecordFormatException e) {
        throw new IllegalArgumentException("Invalid If-Match: " + e.getMessage());
      }
      if (fromBody.isPresent() && !fromBody.get().equals(header)) {
        throw new IllegalArgumentException("Invalid request: If-Match and the body's expected revision differ");
      }
      return Optional.of(header);
    }
    return fromBody;
  }

  /**
   * Reads {@code pageSize} (1 to 1000, default 100) and where to start: {@code pageToken} (a
   * previous page's {@code nextPageToken}) or {@code startAfter} (any key: the page holds the keys
   * under the scope strictly after it, as {@link dev.lethe.store.core.Store#listPage} does; the
   * remote client walks this way), not both.
   */
  static PageRequest page(Context ctx, PageTokenKey key, String listing, KeyPrefix prefix) {
    int limit = pageSize(ctx);
    String token = ctx.queryParam("pageToken");
    String startAfter = ctx.queryParam("startAfter");
    if (startAfter != null) {
      if (token != null) {
        throw new IllegalArgumentException("Invalid request: pageToken and startAfter together");
      }
      RecordKey after;
      try {
        after = RecordKey.parse(startAfter);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid startAfter: " + e.getMessage());
      }
      return new PageRequest(Optional.of(after), limit);
    }
    if (token == null) {
      return new PageRequest(Optional.empty(), limit);
    }
    String cursor = PageToken.decode(key, token, listing, prefix.toString());
    RecordKey after;
    try {
      after = RecordKey.parse(cursor);
    } catch (IllegalArgumentException e) {
      throw PageToken.notIssued();
    }
    if (!prefix.matches(after)) {
      throw PageToken.notIssued();
    }
    return new PageRequest(Optional.of(after), limit);
  }

  /** Reads {@code pageToken} of the blob listing: the hash to start after, or empty. */
  static Optional<String> blobCursor(Context ctx, PageTokenKey key) {
    String token = ctx.queryParam("pageToken");
    if (token == null) {
      return Optional.empty();
    }
    String hash = PageToken.decode(key, token, "blobs", "*");
    if (!ContentHash.isValid(hash)) {
      throw PageToken.notIssued();
    }
    return Optional.of(hash);
  }

  static int pageSize(Context ctx) {
    String v = ctx.queryParam("pageSize");
    if (v == null) {
      return DEFAULT_PAGE_SIZE;
    }
    try {
      if (!DIGITS.matcher(v).matches()) {
        throw new IllegalArgumentException("not decimal digits");
      }
      return Page.checkLimit(Integer.parseInt(v));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid pageSize '" + printable(v) + "': expected 1 to " + Page.MAX_LIMIT);
    }
  }

  /** Reads {@code storedAtOrBefore} (ms since the epoch), required by a blob removal. */
  static long storedAtOrBefore(Context ctx) {
    String v = ctx.queryParam("storedAtOrBefore");
    if (v == null) {
      throw new IllegalArgumentException("Missing storedAtOrBefore (ms since the epoch): a blob is removed only if "
          + "it was stored at or before it");
    }
    try {
      if (!DIGITS.matcher(v).matches()) {
        throw new NumberFormatException("not decimal digits");
      }
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid storedAtOrBefore '" + printable(v) + "': expected ms since the epoch");
    }
  }

  /**
   * A raw put's body: the whole record in the docs/store-format.md JSON, for the path's key.
   *
   * @throws IllegalArgumentException for invalid JSON or record, or a key other than the path's
   */
  static Record rawRecord(byte[] body, RecordKey key) {
    Record r = RECORD_JSON.fromJson(StrictJson.read(body, "record"));
    if (!r.key().equals(key)) {
      throw new IllegalArgumentException("Invalid record: its key " + r.key() + " does not match the path's key " + key);
    }
    return r;
  }

  /**
   * A batched raw put's body (docs/store.md "Routes", **Batched raw put body**): a JSON array of 1 to {@code
   * maxItems} objects {@code {"record": RECORD, "expected": REVISION | null}}, every record in
   * namespace {@code namespace}; an absent or null {@code expected} means "must not exist", as
   * {@code If-None-Match: *} on the single route.
   *
   * @throws IllegalArgumentException naming the first bad item (by index) for anything else; the
   *     whole batch is refused
   */
  static java.util.List<dev.lethe.store.core.RawPut> rawBatch(byte[] body, String namespace, int maxItems) {
    JsonNode n = StrictJson.read(body, "batch");
    if (!n.isArray()) {
      throw new IllegalArgumentException("Invalid batch: expected a JSON array of {record, expected} items");
    }
    if (n.isEmpty() || n.size() > maxItems) {
      throw new IllegalArgumentException("Invalid batch: " + n.size() + " items, expected 1 to " + maxItems
          + " (nothing written)");
    }
    java.util.List<dev.lethe.store.core.RawPut> items = new java.util.ArrayList<>(n.size());
    for (int i = 0; i < n.size(); i++) {
      JsonNode item = n.get(i);
      try {
        if (!item.isObject()) {
          throw new IllegalArgumentException("expected an object {record, expected}");
        }
        for (Iterator<String> it = item.fieldNames(); it.hasNext(); ) {
          String f = it.next();
          if (!f.equals("record") && !f.equals("expected")) {
            throw new IllegalArgumentException("unknown field '" + f + "'");
          }
        }
        JsonNode rec = item.get("record");
        if (rec == null || !rec.isObject()) {
          throw new IllegalArgumentException("'record' must be a record object");
        }
        Record r = RECORD_JSON.fromJson(rec);
        if (!r.key().namespace().equals(namespace)) {
          throw new IllegalArgumentException("its key " + r.key() + " is not in the path's namespace " + namespace);
        }
        // the store refuses it too (before writing any item); checked here to name the item
        dev.lethe.store.core.planner.RawPutPlanner.problem(r).ifPresent(problem -> {
          throw new IllegalArgumentException("record " + r.key() + ": " + problem);
        });
        items.add(new dev.lethe.store.core.RawPut(r, revision(item)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid batch item " + i + ": " + e.getMessage() + " (nothing written)", e);
      }
    }
    return items;
  }

  /**
   * A delete's optional body {@code {"expected": REVISION, "author": NAME}}; an empty body is none.
   *
   * @return the expected revision and the claimed deleter
   */
  static DeleteBody deleteBody(byte[] body) {
    JsonNode n = optionalObject(body, "delete body", Set.of("expected", "author"));
    if (n == null) {
      return new DeleteBody(Optional.empty(), Optional.empty());
    }
    JsonNode author = n.get("author");
    if (author != null && !author.isNull() && !(author.isTextual() && !author.textValue().isBlank())) {
      throw new IllegalArgumentException("Invalid delete body: 'author' must be a non-empty string or null");
    }
    return new DeleteBody(revision(n),
        author == null || author.isNull() ? Optional.empty() : Optional.of(author.textValue()));
  }

  /** A delete's parsed body. */
  record DeleteBody(Optional<Revision> expected, Optional<String> author) {}

  /** A purge's optional body {@code {"expected": REVISION}}; an empty body is none. */
  static Optional<Revision> purgeBody(byte[] body) {
    JsonNode n = optionalObject(body, "purge body", Set.of("expected"));
    return n == null ? Optional.empty() : revision(n);
  }

  private static Optional<Revision> revision(JsonNode n) {
    JsonNode e = n.get("expected");
    return e == null || e.isNull() ? Optional.empty() : Optional.of(RevisionJson.fromNode(e, "expected"));
  }

  private static JsonNode optionalObject(byte[] body, String what, Set<String> fields) {
    if (body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
      return null;
    }
    JsonNode n = StrictJson.read(body, what);
    if (!n.isObject()) {
      throw new IllegalArgumentException("Invalid " + what + ": expected a JSON object");
    }
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!fields.contains(f)) {
        throw new IllegalArgumentException("Invalid " + what + ": unknown field '" + f + "'");
      }
    }
    return n;
  }

  /** Shortens and escapes a bad value for a one-line message. */
  static String printable(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 60; i++) {
      char c = s.charAt(i);
      b.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return s.length() > 60 ? b + "..." : b.toString();
  }
}
