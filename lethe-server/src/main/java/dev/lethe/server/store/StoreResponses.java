package dev.lethe.server.store;

import dev.lethe.server.http.ErrorMapper;
import dev.lethe.server.http.PageTokenKey;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.format.StrictJson;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes the store's outcomes as HTTP (docs/design/0103-store-http-routes.md): a record as its
 * docs/store-format.md JSON; {@code Committed} 201 (created: no expected revision) or 200;
 * {@code Conflict} 409 with the stored record (a tombstone included); {@code NotFound} of a
 * conditional write 412, never 404 (a 404 on a raw route is how a client recognises a server
 * that predates them); a delete that wrote a tombstone 200 with it, one that wrote nothing 204; a
 * purge 204.
 */
final class StoreResponses {
  private static final RecordJson RECORD_JSON = new RecordJson();
  private static final String JSON = "application/json";

  private StoreResponses() {}

  static void record(Context ctx, int status, Record r) {
    ctx.status(status).contentType(JSON).result(RECORD_JSON.encode(r));
  }

  static void notFound(Context ctx, RecordKey key) {
    ErrorMapper.plain(ctx, 404, "NotFound", "not found: " + key);
  }

  /**
   * @param raw whether this answers a raw put (a tombstone is a record there) or a consumer put
   *     (a deleted key is absent)
   */
  static void put(Context ctx, RecordKey key, PutResult result, boolean creating, boolean raw) {
    if (result instanceof Committed c) {
      record(ctx, creating ? 201 : 200, c.record());
    } else if (result instanceof Conflict c) {
      record(ctx, 409, c.current());
    } else if (result instanceof NotFound) {
      ErrorMapper.plain(ctx, 412, "NotFound", "Cannot put " + key + ": an expected revision was given but the key "
          + (raw ? "is absent" : "is absent or deleted") + " (re-read it)");
    }
  }

  /**
   * A batched raw put's answer: 200 {@code {"results": [...]}}, one object per item in order, with
   * the single route's status ({@code 201} created, {@code 200} written over the expected
   * revision, {@code 409} conflict, {@code 412} NotFound) and the record ({@code 201}, {@code 200}:
   * as written; {@code 409}: the stored one) or, for {@code 412}, a {@code message}.
   */
  static void batch(Context ctx, java.util.List<dev.lethe.store.core.RawPut> items, java.util.List<PutResult> results) {
    ObjectNode body = StrictJson.mapper().createObjectNode();
    ArrayNode out = body.putArray("results");
    for (int i = 0; i < results.size(); i++) {
      PutResult r = results.get(i);
      ObjectNode o = out.addObject();
      if (r instanceof Committed c) {
        o.put("status", items.get(i).expected().isEmpty() ? 201 : 200);
        o.set("record", RECORD_JSON.toJson(c.record()));
      } else if (r instanceof Conflict c) {
        o.put("status", 409);
        o.set("record", RECORD_JSON.toJson(c.current()));
      } else if (r instanceof NotFound) {
        o.put("status", 412);
        o.put("message", "Cannot put " + items.get(i).record().key()
            + ": an expected revision was given but the key is absent (re-read it)");
      }
    }
    json(ctx, 200, body);
  }

  static void delete(Context ctx, DeleteResult result) {
    if (result instanceof Conflict c) {
      record(ctx, 409, c.current());
    } else if (result instanceof Deleted d && d.tombstone().isPresent()) {
      record(ctx, 200, d.tombstone().get());
    } else {
      ctx.status(204);
    }
  }

  static void page(Context ctx, PageTokenKey key, Page page, String listing, String scope) {
    ObjectNode body = StrictJson.mapper().createObjectNode();
    ArrayNode records = body.putArray("records");
    page.records().forEach(r -> records.add(RECORD_JSON.toJson(r)));
    body.put("nextPageToken", page.next().map(k -> PageToken.encode(key, listing, scope, k.toString())).orElse(null));
    json(ctx, 200, body);
  }

  static void blobs(Context ctx, PageTokenKey key, StoreService.BlobPage page) {
    ObjectNode body = StrictJson.mapper().createObjectNode();
    ArrayNode blobs = body.putArray("blobs");
    for (BlobInfo b : page.blobs()) {
      blobs.addObject().put("hash", b.hash()).put("length", b.length()).put("storedAt", b.storedAt());
    }
    body.put("nextPageToken", page.next().map(h -> PageToken.encode(key, "blobs", "*", h)).orElse(null));
    json(ctx, 200, body);
  }

  static void blobStored(Context ctx, BlobRef ref) {
    ObjectNode body = StrictJson.mapper().createObjectNode();
    body.put("hash", ref.hash()).put("length", ref.length());
    json(ctx, 200, body);
  }

  static void blobRemoved(Context ctx, boolean removed) {
    ObjectNode body = StrictJson.mapper().createObjectNode();
    body.put("removed", removed);
    json(ctx, 200, body);
  }

  static void info(Context ctx, StoreService.Info info) {
    ObjectNode body = StrictJson.mapper().createObjectNode();
    body.put("formatVersion", info.formatVersion());
    body.put("ancestorCap", info.ancestorCap());
    body.put("maxPageSize", info.maxPageSize());
    body.put("maxBatchItems", info.maxBatchItems());
    json(ctx, 200, body);
  }

  private static void json(Context ctx, int status, ObjectNode body) {
    try {
      ctx.status(status).contentType(JSON).result(StrictJson.mapper().writeValueAsBytes(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
