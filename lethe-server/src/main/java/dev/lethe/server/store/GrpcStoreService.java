package dev.lethe.server.store;

import static dev.lethe.server.store.GrpcMessages.after;
import static dev.lethe.server.store.GrpcMessages.author;
import static dev.lethe.server.store.GrpcMessages.batchReply;
import static dev.lethe.server.store.GrpcMessages.blobHash;
import static dev.lethe.server.store.GrpcMessages.chunks;
import static dev.lethe.server.store.GrpcMessages.deleteReply;
import static dev.lethe.server.store.GrpcMessages.encode;
import static dev.lethe.server.store.GrpcMessages.expected;
import static dev.lethe.server.store.GrpcMessages.key;
import static dev.lethe.server.store.GrpcMessages.prefix;
import static dev.lethe.server.store.GrpcMessages.putReply;
import static dev.lethe.server.store.GrpcMessages.rawBatch;
import static dev.lethe.server.store.GrpcMessages.recordReply;

import com.google.protobuf.ByteString;
import dev.lethe.server.auth.Principal;
import dev.lethe.server.http.ErrorMapper;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.DraftJson;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.PurgeLogPage;
import dev.lethe.store.grpc.GrpcWire;
import dev.lethe.store.grpc.proto.ForgetPeerReply;
import dev.lethe.store.grpc.proto.ForgetPeerRequest;
import dev.lethe.store.grpc.proto.LedgerInfoReply;
import dev.lethe.store.grpc.proto.LedgerInfoRequest;
import dev.lethe.store.grpc.proto.LedgerPeersReply;
import dev.lethe.store.grpc.proto.LedgerPeersRequest;
import dev.lethe.store.grpc.proto.PurgedReply;
import dev.lethe.store.grpc.proto.PurgedRequest;
import dev.lethe.store.grpc.proto.RecordCollectReply;
import dev.lethe.store.grpc.proto.RecordCollectRequest;
import dev.lethe.store.grpc.proto.RecordPeerReply;
import dev.lethe.store.grpc.proto.RecordPeerRequest;
import dev.lethe.store.grpc.proto.TrimPurgedReply;
import dev.lethe.store.grpc.proto.TrimPurgedRequest;
import dev.lethe.store.grpc.proto.BlobInfo;
import dev.lethe.store.grpc.proto.BlobRequest;
import dev.lethe.store.grpc.proto.DeleteReply;
import dev.lethe.store.grpc.proto.DeleteRequest;
import dev.lethe.store.grpc.proto.GetBlobReply;
import dev.lethe.store.grpc.proto.HasBlobReply;
import dev.lethe.store.grpc.proto.InfoReply;
import dev.lethe.store.grpc.proto.InfoRequest;
import dev.lethe.store.grpc.proto.KeyRequest;
import dev.lethe.store.grpc.proto.LetheStoreGrpc;
import dev.lethe.store.grpc.proto.ListBlobsReply;
import dev.lethe.store.grpc.proto.ListBlobsRequest;
import dev.lethe.store.grpc.proto.ListChunk;
import dev.lethe.store.grpc.proto.ListReply;
import dev.lethe.store.grpc.proto.ListRequest;
import dev.lethe.store.grpc.proto.PurgeRequest;
import dev.lethe.store.grpc.proto.PutBlobReply;
import dev.lethe.store.grpc.proto.PutBlobRequest;
import dev.lethe.store.grpc.proto.PutRawBatchReply;
import dev.lethe.store.grpc.proto.PutRawBatchRequest;
import dev.lethe.store.grpc.proto.PutReply;
import dev.lethe.store.grpc.proto.PutRequest;
import dev.lethe.store.grpc.proto.RecordReply;
import dev.lethe.store.grpc.proto.RemoveBlobReply;
import dev.lethe.store.grpc.proto.RemoveBlobRequest;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's gRPC calls (docs/design/0141-grpc-transport.md): each parses its request, makes one
 * {@link StoreService} call — the same service, access checks and author stamping as the HTTP
 * routes — and maps the outcome; {@link GrpcMessages} reads the requests and writes the replies.
 * Committed / Deleted are replies; a Conflict is {@code ABORTED} with the stored record in the
 * {@link GrpcWire#CONFLICT_RECORD} trailer; NotFound on a put is {@code FAILED_PRECONDITION}. Failures are classified as on HTTP ({@link ErrorMapper}): {@link
 * IllegalArgumentException} → {@code INVALID_ARGUMENT}, {@link NotAuthorizedException} → {@code
 * UNAUTHENTICATED}, {@link ForbiddenException} → {@code PERMISSION_DENIED}, anything while the
 * server stops or {@link UncheckedIOException} → {@code UNAVAILABLE}, {@link
 * CorruptRecordException} → {@code INTERNAL} with the key in {@link GrpcWire#CORRUPT_KEY},
 * anything else → {@code INTERNAL}, details only in the server log. The ledger calls are {@link
 * StoreLedgerService}'s, as the HTTP ledger routes are.
 *
 * <p>Thread-safe.
 */
final class GrpcStoreService extends LetheStoreGrpc.LetheStoreImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcStoreService.class);

  /** The raw {@code authorization} header of the current call, set by {@link GrpcStoreServer}. */
  static final Context.Key<String> AUTHORIZATION = Context.key("lethe-authorization");

  private final StoreService service;
  private final StoreLedgerService ledger;
  private final BooleanSupplier stopping;

  GrpcStoreService(StoreService service, BooleanSupplier stopping) {
    this.service = Objects.requireNonNull(service, "service");
    this.ledger = new StoreLedgerService(service);
    this.stopping = Objects.requireNonNull(stopping, "stopping");
  }

  /** One call's work: identifies the caller first, as the HTTP routes do. */
  private interface Call<T> {
    T run(Optional<Principal> caller);
  }

  private <T> void unary(String rpc, StreamObserver<T> out, Call<T> call) {
    T reply;
    try {
      reply = call.run(service.caller(AUTHORIZATION.get()));
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    } catch (RuntimeException e) {
      out.onError(status(rpc, e));
      return;
    }
    out.onNext(reply);
    out.onCompleted();
  }

  @Override
  public void info(InfoRequest request, StreamObserver<InfoReply> out) {
    unary("Info", out, auth -> {
      StoreService.Info i = service.info(auth);
      return InfoReply.newBuilder().setFormatVersion(i.formatVersion()).setAncestorCap(i.ancestorCap())
          .setMaxPageSize(i.maxPageSize()).setMaxBatchItems(i.maxBatchItems()).build();
    });
  }

  @Override
  public void get(KeyRequest request, StreamObserver<RecordReply> out) {
    unary("Get", out, auth -> recordReply(service.get(auth, key(request.getKey()))));
  }

  @Override
  public void getRaw(KeyRequest request, StreamObserver<RecordReply> out) {
    unary("GetRaw", out, auth -> recordReply(service.getRaw(auth, key(request.getKey()))));
  }

  @Override
  public void list(ListRequest request, StreamObserver<ListReply> out) {
    unary("List", out, auth -> {
      KeyPrefix prefix = prefix(request);
      Page p = service.list(auth, prefix, after(request), Page.checkLimit(request.getPageSize()));
      ListReply.Builder b = ListReply.newBuilder().setMore(p.next().isPresent());
      p.records().forEach(r -> b.addRecordJson(encode(r)));
      return b.build();
    });
  }

  /**
   * Streams raw records: with {@code page_size} 1 to the largest page, exactly the store's one
   * page ({@code more} on the last chunk when another follows); with {@code page_size} 0 every
   * record, a store page of {@value GrpcWire#CHUNK} at a time. A page goes out in chunks of at
   * most {@value GrpcMessages#CHUNK_BYTES} bytes of records (a single larger record alone).
   */
  @Override
  public void listRaw(ListRequest request, StreamObserver<ListChunk> out) {
    try {
      Optional<Principal> auth = service.caller(AUTHORIZATION.get());
      KeyPrefix prefix = prefix(request);
      Optional<RecordKey> after = after(request);
      if (request.getPageSize() != 0) {
        Page p = service.listRaw(auth, prefix, after, Page.checkLimit(request.getPageSize()));
        chunks(p.records(), p.next().isPresent(), out::onNext);
      } else {
        Page p;
        do {
          p = service.listRaw(auth, prefix, after, GrpcWire.CHUNK);
          chunks(p.records(), false, out::onNext);
          after = p.next();
        } while (after.isPresent());
      }
      out.onCompleted();
    } catch (RuntimeException e) {
      out.onError(status("ListRaw", e));
    }
  }

  @Override
  public void put(PutRequest request, StreamObserver<PutReply> out) {
    unary("Put", out, auth -> {
      RecordKey key = key(request.getKey());
      DraftJson.Parsed draft = DraftJson.parse(request.getRecordJson().toByteArray(), key);
      if (draft.expected().isPresent()) {
        throw new IllegalArgumentException("Invalid record draft: the expected revision goes in PutRequest.expected,"
            + " not in the draft");
      }
      Optional<Revision> expected = expected(request.hasExpected(), request.getExpected());
      return putReply(service.put(auth, draft.draft(), expected), expected.isEmpty());
    });
  }

  @Override
  public void putRaw(PutRequest request, StreamObserver<PutReply> out) {
    unary("PutRaw", out, auth -> {
      RecordKey key = key(request.getKey());
      Record record = StoreRequests.rawRecord(request.getRecordJson().toByteArray(), key);
      Optional<Revision> expected = expected(request.hasExpected(), request.getExpected());
      return putReply(service.putRaw(auth, record, expected), expected.isEmpty());
    });
  }

  @Override
  public void putRawBatch(PutRawBatchRequest request, StreamObserver<PutRawBatchReply> out) {
    unary("PutRawBatch", out, auth -> {
      GrpcMessages.RawBatch batch = rawBatch(request);
      return batchReply(service.putRawBatch(auth, batch.namespace(), batch.items()));
    });
  }

  @Override
  public void delete(DeleteRequest request, StreamObserver<DeleteReply> out) {
    unary("Delete", out, auth -> {
      RecordKey key = key(request.getKey());
      Optional<String> author = author(request.getAuthorJson());
      return deleteReply(service.delete(auth, key, expected(request.hasExpected(), request.getExpected()), author));
    });
  }

  @Override
  public void purge(PurgeRequest request, StreamObserver<DeleteReply> out) {
    unary("Purge", out, auth -> deleteReply(
        service.purge(auth, key(request.getKey()), expected(request.hasExpected(), request.getExpected()))));
  }

  @Override
  public void putBlob(PutBlobRequest request, StreamObserver<PutBlobReply> out) {
    unary("PutBlob", out, auth -> {
      BlobRef ref = service.putBlob(auth, blobHash(request.getHash()), request.getContent().toByteArray());
      return PutBlobReply.newBuilder().setHash(ref.hash()).setLength(ref.length()).build();
    });
  }

  @Override
  public void getBlob(BlobRequest request, StreamObserver<GetBlobReply> out) {
    unary("GetBlob", out, auth -> {
      Optional<byte[]> content = service.getBlob(auth, blobHash(request.getHash()));
      return content.map(c -> GetBlobReply.newBuilder().setFound(true).setContent(ByteString.copyFrom(c)).build())
          .orElse(GetBlobReply.getDefaultInstance());
    });
  }

  @Override
  public void hasBlob(BlobRequest request, StreamObserver<HasBlobReply> out) {
    unary("HasBlob", out, auth ->
        HasBlobReply.newBuilder().setFound(service.hasBlob(auth, blobHash(request.getHash()))).build());
  }

  @Override
  public void listBlobs(ListBlobsRequest request, StreamObserver<ListBlobsReply> out) {
    unary("ListBlobs", out, auth -> {
      Optional<String> after = request.getStartAfter().isEmpty() ? Optional.empty()
          : Optional.of(blobHash(request.getStartAfter()));
      StoreService.BlobPage page = service.listBlobs(auth, after, Page.checkLimit(request.getPageSize()));
      ListBlobsReply.Builder b = ListBlobsReply.newBuilder().setMore(page.next().isPresent());
      page.blobs().forEach(i -> b.addBlobs(
          BlobInfo.newBuilder().setHash(i.hash()).setLength(i.length()).setStoredAtMs(i.storedAt())));
      return b.build();
    });
  }

  @Override
  public void removeBlob(RemoveBlobRequest request, StreamObserver<RemoveBlobReply> out) {
    unary("RemoveBlob", out, auth -> {
      if (request.getStoredAtOrBeforeMs() < 0) {
        throw new IllegalArgumentException("Invalid stored_at_or_before_ms: " + request.getStoredAtOrBeforeMs()
            + " (ms since the epoch, at least 0)");
      }
      return RemoveBlobReply.newBuilder()
          .setRemoved(service.removeBlob(auth, blobHash(request.getHash()), request.getStoredAtOrBeforeMs())).build();
    });
  }

  // ---- ledger (docs/design/0142-ledger-over-grpc.md) -----------------------------------------

  @Override
  public void ledgerInfo(LedgerInfoRequest request, StreamObserver<LedgerInfoReply> out) {
    unary("LedgerInfo", out, auth -> {
      StoreLedgerService.Info i = ledger.info(auth);
      LedgerInfoReply.Builder b = LedgerInfoReply.newBuilder().setId(i.id()).setNowMs(i.now());
      i.collectCutoff().ifPresent(b::setCollectCutoffMs);
      return b.build();
    });
  }

  @Override
  public void ledgerPeers(LedgerPeersRequest request, StreamObserver<LedgerPeersReply> out) {
    unary("LedgerPeers", out, auth -> {
      LedgerPeersReply.Builder b = LedgerPeersReply.newBuilder();
      ledger.peers(auth).forEach(p -> b.addPeerJson(ByteString.copyFromUtf8(LedgerJson.peer(p).toString())));
      return b.build();
    });
  }

  @Override
  public void recordPeer(RecordPeerRequest request, StreamObserver<RecordPeerReply> out) {
    unary("RecordPeer", out, auth -> {
      ledger.recordPeer(auth, request.getId(), () -> StrictJson.read(request.getPeerJson().toByteArray(), "peer_json"));
      return RecordPeerReply.getDefaultInstance();
    });
  }

  @Override
  public void forgetPeer(ForgetPeerRequest request, StreamObserver<ForgetPeerReply> out) {
    unary("ForgetPeer", out, auth ->
        ForgetPeerReply.newBuilder().setForgotten(ledger.forgetPeer(auth, request.getId())).build());
  }

  @Override
  public void purged(PurgedRequest request, StreamObserver<PurgedReply> out) {
    unary("Purged", out, auth -> {
      KeyPrefix prefix = prefix(request.getNamespace(), request.getCollection());
      PurgedReply.Builder b = PurgedReply.newBuilder();
      if (request.getPageSize() == 0 && request.getPageToken().isEmpty()) {
        ledger.purged(auth, prefix).forEach(e -> b.addEntries(LedgerJson.entry(e))); // clients that do not page
        return b.build();
      }
      // docs/design/0157-purge-log-pages.md: the ledger's cursor as it is, like start_after of the listings
      int size = request.getPageSize() == 0 ? PurgeLogPage.MAX_SIZE : request.getPageSize();
      PurgeLogPage page = ledger.purgedPage(auth, prefix,
          request.getPageToken().isEmpty() ? Optional.empty() : Optional.of(request.getPageToken()), size);
      page.entries().forEach(e -> b.addEntries(LedgerJson.entry(e)));
      page.next().ifPresent(b::setNextPageToken);
      return b.build();
    });
  }

  @Override
  public void recordCollect(RecordCollectRequest request, StreamObserver<RecordCollectReply> out) {
    unary("RecordCollect", out, auth -> {
      ledger.recordCollect(auth, () -> StoreLedgerService.notNegative(request.getCutoffMs(), "cutoff_ms"));
      return RecordCollectReply.getDefaultInstance();
    });
  }

  @Override
  public void trimPurged(TrimPurgedRequest request, StreamObserver<TrimPurgedReply> out) {
    unary("TrimPurged", out, auth -> TrimPurgedReply.newBuilder()
        .setRemoved(ledger.trimPurged(auth, () -> StoreLedgerService.notNegative(request.getBeforeMs(), "before_ms")))
        .build());
  }

  /**
   * The status of a failure: classified as on the HTTP store routes ({@link ErrorMapper}'s table,
   * docs/design/0215-one-http-edge-and-composition-root.md §1), answered with gRPC's statuses.
   */
  private StatusRuntimeException status(String rpc, RuntimeException e) {
    ErrorMapper.Answer a = ErrorMapper.answer(ErrorMapper.Surface.STORE, e, stopping.getAsBoolean());
    if (a.close()) { // the stop's answer
      LOG.warn("gRPC {} answered UNAVAILABLE: the server is stopping", rpc);
      return Status.UNAVAILABLE.withDescription(a.message()).asRuntimeException();
    }
    Status status = switch (a.status()) {
      case 400 -> Status.INVALID_ARGUMENT;
      case 401 -> Status.UNAUTHENTICATED;
      case 403 -> Status.PERMISSION_DENIED;
      case 503 -> Status.UNAVAILABLE;
      default -> Status.INTERNAL;
    };
    boolean corrupt = e instanceof CorruptRecordException;
    if (status == Status.INTERNAL && !corrupt) {
      LOG.error("gRPC {} failed", rpc, e);
      return Status.INTERNAL.withDescription(ErrorMapper.INTERNAL).asRuntimeException();
    }
    if (a.log() == ErrorMapper.Log.MESSAGE) {
      LOG.error("gRPC {}: {}", rpc, e.getMessage());
    } else if (a.log() == ErrorMapper.Log.STORE_FAILED) {
      LOG.error("gRPC {}: the store failed", rpc, e);
    }
    Metadata trailers = new Metadata();
    if (corrupt) {
      ((CorruptRecordException) e).key().ifPresent(k -> trailers.put(GrpcWire.CORRUPT_KEY, k.toString()));
    }
    return status.withDescription(a.message()).asRuntimeException(trailers);
  }
}
