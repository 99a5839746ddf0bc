package dev.lethe.server.store;

import dev.lethe.server.http.ApiException;
import dev.lethe.server.http.DotSegments;
import dev.lethe.server.http.ErrorMapper;
import dev.lethe.server.http.PageTokenKey;
import dev.lethe.server.http.ReadRoutes;
import dev.lethe.server.http.RequestBody;
import dev.lethe.server.auth.AuthorizationHeader;
import dev.lethe.server.auth.Principal;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.format.DraftJson;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * The Lethe Store over HTTP, under {@value #ROOT} (docs/store.md "Routes";
 * docs/design/0103-store-http-routes.md). Each handler parses ({@link StoreRequests}), calls one
 * {@link StoreService} method and writes its outcome ({@link StoreResponses}); every exception
 * is answered by {@link ErrorMapper}.
 */
public final class StoreRoutes {
  /** Root of the store routes. */
  public static final String ROOT = "/store/v1";
  private static final String KEY = "/{ns}/{col}/{id}";

  private final StoreService service;
  private final PageTokenKey pageTokens;
  private final StoreMetrics metrics;

  /**
   * @param pageTokens the key listing tokens are signed with
   * @param metrics where answered batches are counted
   */
  public StoreRoutes(StoreService service, PageTokenKey pageTokens, StoreMetrics metrics) {
    this.service = service;
    this.pageTokens = pageTokens;
    this.metrics = metrics;
  }

  @FunctionalInterface
  private interface Handler {
    void handle(Context ctx, Optional<Principal> caller) throws Exception;
  }

  /** Registers every store route, and a filter answering 400 to a {@code .}, {@code ..} or empty path segment. */
  public void register(RoutesConfig routes) {
    routes.before("/store/*", StoreRoutes::rejectDotSegments);
    ReadRoutes.getAndHead(routes, ROOT, ctx -> run(ctx, service, (c, auth) -> StoreResponses.info(c, service.info(auth))));

    ReadRoutes.getAndHead(routes, ROOT + "/records", ctx -> run(ctx, service, this::list));
    ReadRoutes.getAndHead(routes, ROOT + "/records/{ns}", ctx -> run(ctx, service, this::list));
    ReadRoutes.getAndHead(routes, ROOT + "/records/{ns}/{col}", ctx -> run(ctx, service, this::list));
    ReadRoutes.getAndHead(routes, ROOT + "/records" + KEY, ctx -> run(ctx, service, this::get));
    routes.put(ROOT + "/records" + KEY, ctx -> run(ctx, service, this::put));
    routes.delete(ROOT + "/records" + KEY, ctx -> run(ctx, service, this::delete));

    ReadRoutes.getAndHead(routes, ROOT + "/raw/records", ctx -> run(ctx, service, this::listRaw));
    ReadRoutes.getAndHead(routes, ROOT + "/raw/records/{ns}", ctx -> run(ctx, service, this::listRaw));
    ReadRoutes.getAndHead(routes, ROOT + "/raw/records/{ns}/{col}", ctx -> run(ctx, service, this::listRaw));
    ReadRoutes.getAndHead(routes, ROOT + "/raw/records" + KEY, ctx -> run(ctx, service, this::getRaw));
    routes.put(ROOT + "/raw/records" + KEY, ctx -> run(ctx, service, this::putRaw));
    routes.post(ROOT + "/raw/purge" + KEY, ctx -> run(ctx, service, this::purge));
    routes.post(ROOT + "/raw/batch/{ns}", ctx -> run(ctx, service, this::putRawBatch));

    ReadRoutes.getAndHead(routes, ROOT + "/blobs", ctx -> run(ctx, service, this::listBlobs));
    routes.put(ROOT + "/blobs/{hash}", ctx -> run(ctx, service, this::putBlob));
    routes.get(ROOT + "/blobs/{hash}", ctx -> run(ctx, service, this::getBlob));
    routes.head(ROOT + "/blobs/{hash}", ctx -> run(ctx, service, this::hasBlob));
    routes.delete(ROOT + "/blobs/{hash}", ctx -> run(ctx, service, this::removeBlob));
    new LedgerRoutes(service, pageTokens).register(routes, (path, h) -> ctx -> run(ctx, service, h::handle));
  }

  private static void run(Context ctx, StoreService service, Handler handler) throws Exception {
    // 401 before anything else: no path or body is parsed for a caller without a valid token
    Optional<Principal> caller = service.caller(AuthorizationHeader.of(ctx));
    StoreRequests.rejectRepeats(ctx);
    handler.handle(ctx, caller);
  }

  private void get(Context ctx, Optional<Principal> auth) {
    RecordKey key = StoreRequests.key(ctx);
    Optional<Record> r = service.get(auth, key);
    if (r.isPresent()) {
      StoreResponses.record(ctx, 200, r.get());
    } else {
      StoreResponses.notFound(ctx, key);
    }
  }

  private void list(Context ctx, Optional<Principal> auth) {
    KeyPrefix prefix = StoreRequests.prefix(ctx);
    StoreRequests.PageRequest page = StoreRequests.page(ctx, pageTokens, "live", prefix);
    StoreResponses.page(ctx, pageTokens, service.list(auth, prefix, page.after(), page.limit()), "live", prefix.toString());
  }

  private void put(Context ctx, Optional<Principal> auth) {
    RecordKey key = StoreRequests.key(ctx);
    DraftJson.Parsed draft = DraftJson.parse(RequestBody.read(ctx), key);
    Optional<Revision> expected = StoreRequests.expected(ctx, draft.expected());
    PutResult result = service.put(auth, draft.draft(), expected);
    StoreResponses.put(ctx, key, result, expected.isEmpty(), false);
  }

  private void delete(Context ctx, Optional<Principal> auth) {
    RecordKey key = StoreRequests.key(ctx);
    if (ctx.header("If-None-Match") != null) {
      throw new IllegalArgumentException("Invalid If-None-Match on a delete: a delete expects a revision or nothing");
    }
    StoreRequests.DeleteBody body = StoreRequests.deleteBody(RequestBody.read(ctx));
    Optional<Revision> expected = StoreRequests.expected(ctx, body.expected());
    StoreResponses.delete(ctx, service.delete(auth, key, expected, body.author()));
  }

  private void getRaw(Context ctx, Optional<Principal> auth) {
    RecordKey key = StoreRequests.key(ctx);
    Optional<Record> r = service.getRaw(auth, key);
    if (r.isPresent()) {
      StoreResponses.record(ctx, 200, r.get());
    } else {
      // never 404 on a raw route: that is how a client recognises a server without them
      ctx.status(204);
    }
  }

  private void listRaw(Context ctx, Optional<Principal> auth) {
    KeyPrefix prefix = StoreRequests.prefix(ctx);
    StoreRequests.PageRequest page = StoreRequests.page(ctx, pageTokens, "raw", prefix);
    StoreResponses.page(ctx, pageTokens, service.listRaw(auth, prefix, page.after(), page.limit()), "raw", prefix.toString());
  }

  private void putRaw(Context ctx, Optional<Principal> auth) {
    RecordKey key = StoreRequests.key(ctx);
    Record record = StoreRequests.rawRecord(RequestBody.read(ctx), key);
    Optional<Revision> expected = StoreRequests.expected(ctx, Optional.empty());
    StoreResponses.put(ctx, key, service.putRaw(auth, record, expected), expected.isEmpty(), true);
  }

  private void putRawBatch(Context ctx, Optional<Principal> auth) {
    String namespace = StoreRequests.namespace(ctx);
    if (ctx.header("If-Match") != null || ctx.header("If-None-Match") != null) {
      throw new IllegalArgumentException("Invalid request: a batch takes each item's expected revision in its body, "
          + "not If-Match or If-None-Match");
    }
    java.util.List<dev.lethe.store.core.RawPut> items =
        StoreRequests.rawBatch(RequestBody.read(ctx), namespace, StoreService.MAX_BATCH_ITEMS);
    StoreResponses.batch(ctx, items, service.putRawBatch(auth, namespace, items));
    metrics.batch(items.size());
  }

  private void purge(Context ctx, Optional<Principal> auth) {
    RecordKey key = StoreRequests.key(ctx);
    if (ctx.header("If-None-Match") != null) {
      throw new IllegalArgumentException("Invalid If-None-Match on a purge: a purge removes the revision it names");
    }
    Optional<Revision> expected = StoreRequests.expected(ctx, StoreRequests.purgeBody(RequestBody.read(ctx)));
    StoreResponses.delete(ctx, service.purge(auth, key, expected));
  }

  private void listBlobs(Context ctx, Optional<Principal> auth) {
    int limit = StoreRequests.pageSize(ctx);
    StoreResponses.blobs(ctx, pageTokens, service.listBlobs(auth, StoreRequests.blobCursor(ctx, pageTokens), limit));
  }

  private void putBlob(Context ctx, Optional<Principal> auth) {
    String hash = StoreRequests.blobHash(ctx);
    StoreResponses.blobStored(ctx, service.putBlob(auth, hash, RequestBody.read(ctx)));
  }

  private void getBlob(Context ctx, Optional<Principal> auth) {
    String hash = StoreRequests.blobHash(ctx);
    Optional<byte[]> content = service.getBlob(auth, hash);
    if (content.isPresent()) {
      ctx.status(200).contentType("application/octet-stream").result(content.get());
    } else {
      ErrorMapper.plain(ctx, 404, "NotFound", "no blob " + hash);
    }
  }

  private void hasBlob(Context ctx, Optional<Principal> auth) {
    String hash = StoreRequests.blobHash(ctx);
    ctx.status(service.hasBlob(auth, hash) ? 200 : 404);
  }

  private void removeBlob(Context ctx, Optional<Principal> auth) {
    String hash = StoreRequests.blobHash(ctx);
    StoreResponses.blobRemoved(ctx, service.removeBlob(auth, hash, StoreRequests.storedAtOrBefore(ctx)));
  }

  /**
   * The server does not resolve dot segments, so {@code ..} would otherwise reach a route as a
   * key part (rejected anyway) or, once a proxy resolved it, another route: answer 400 first. An
   * empty segment inside the path ({@code /records/ns//id}) is an empty key part: 400 as well,
   * not the 404 of an unknown route, which on a raw route would read as "server too old".
   */
  private static void rejectDotSegments(Context ctx) {
    if (DotSegments.hasEmptyInnerSegment(ctx.path())) {
      throw new ApiException(400, "BadRequest", "Invalid path " + StoreRequests.printable(ctx.path())
          + ": empty path segment (a key part is 1 to 255 characters of [A-Za-z0-9._-])");
    }
    DotSegments.relative(ctx.path(), false).ifPresent(segment -> {
      throw new ApiException(400, "BadRequest",
          "Invalid path " + StoreRequests.printable(ctx.path()) + ": '" + segment + "' is a relative path segment");
    });
  }
}
